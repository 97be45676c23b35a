/**
 * A port of the session's machine, relayed to the visitor's (their launcher listens on a loopback port and opens
 * one relay per connection): bytes both ways between the launcher's WebSocket and a TCP connection, opened by the
 * session's Environment, to the port on that machine's loopback (this device's, or an SSH machine's through its
 * shared connection). A port nothing listens on there ends the relay at once. Owners, and full guests of the
 * session while the owner allows it.
 */
import { isOwnerRole } from "../../protocol/roles.ts";
import type { Environment, Principal, Relay, RelayAccept, RelayPeer, ServerContext } from "../../server/plugin.ts";
import type { ListeningPort } from "./contract.ts";
import { listeningPorts } from "./listening.ts";

export const RELAY_PATH = "/ports/relay";
/** What the launcher sends before the machine's port is connected, at most. */
const MAX_EARLY = 4 * 1024 * 1024;

/** The loopback address that reaches a port listening on `address`. */
function loopbackFor(address: string): string | null {
	if (address === "0.0.0.0" || address.startsWith("127.")) return "127.0.0.1";
	if (address === "::" || address === "::1") return "::1";
	return null;
}

/** Whether `principal` may forward the ports of `session`: its owner, or its full guest while the owner allows it. */
export function mayForward(ctx: ServerContext, principal: Principal, session: string): boolean {
	if (isOwnerRole(principal.role)) return true;
	return (
		principal.role === "full" &&
		principal.session === session &&
		ctx.services.get("guestForwards")?.allowed(session) === true
	);
}

/** The relays guests opened, by session: closed when the owner stops guests forwarding. */
export type GuestRelays = Map<string, Set<Relay>>;

/** How long a machine's listing answers the next relays: a page's burst of connections lists the ports once. */
const LISTING_FRESH_MS = 2_000;

/** The loopback address each machine's ports listen on, from a recent listing of that machine. */
class Listeners {
	readonly #recent = new WeakMap<Environment, { at: number; ports: ListeningPort[] }>();

	/** null: nothing listens on `port` there. Where ports cannot be listed, the IPv4 loopback is tried. */
	async loopback(env: Environment, port: number): Promise<string | null> {
		const recent = this.#recent.get(env);
		let ports = recent && Date.now() - recent.at < LISTING_FRESH_MS ? recent.ports : undefined;
		// A port not in a recent listing may have opened since: listed again.
		if (!ports?.some((p) => p.port === port)) {
			try {
				ports = await listeningPorts(env);
			} catch {
				return "127.0.0.1";
			}
			this.#recent.set(env, { at: Date.now(), ports });
		}
		let host: string | null = null;
		for (const p of ports) if (p.port === port) host ??= loopbackFor(p.address);
		return host;
	}
}

export function relayAccept(ctx: ServerContext, guests: GuestRelays): RelayAccept {
	const listeners = new Listeners();
	return (principal, url) => {
		const session = url.searchParams.get("session") ?? "";
		if (!mayForward(ctx, principal, session))
			return { refuse: 403, why: "only the session's owner, or a full guest they allowed, may forward a port" };
		const port = Number(url.searchParams.get("port"));
		const record = ctx.catalog.get(session);
		if (!record) return { refuse: 404, why: "no such session" };
		if (!Number.isInteger(port) || port < 1 || port > 65535) return { refuse: 400, why: "expected a port" };
		const who = isOwnerRole(principal.role) ? "an owner's" : "a guest's";
		const track = (make: (onClosed: () => void) => Relay): Relay => {
			if (isOwnerRole(principal.role)) return make(() => {});
			const open = guests.get(session) ?? new Set<Relay>();
			guests.set(session, open);
			const relay = make(() => {
				open.delete(relay);
				if (!open.size && guests.get(session) === open) guests.delete(session);
			});
			open.add(relay);
			return relay;
		};
		const envName = record.env ?? "local";
		if (!ctx.environments.has(envName)) return { refuse: 404, why: `no environment ${envName}` };
		const env = ctx.environments.get(envName);
		ctx.log.info(`session:${session}`, `port ${port} of ${envName} forwarded to ${who} machine (a connection opened)`);
		return track((onClosed) => portRelay(env, port, listeners, onClosed));
	};
}

/**
 * Bytes both ways between the launcher's WebSocket and the machine's port: the loopback address it listens on
 * is looked up there first (IPv4 or IPv6); what the launcher sends meanwhile waits, bounded.
 */
function portRelay(env: Environment, port: number, listeners: Listeners, onClosed: () => void): Relay {
	let peer: RelayPeer | undefined;
	let connection: ReturnType<Environment["connectTcp"]> | undefined;
	let closed = false;
	const early: Uint8Array[] = [];
	let earlyBytes = 0;
	const close = () => {
		if (closed) return;
		closed = true;
		onClosed();
		connection?.close();
		peer?.close();
	};
	const connect = async () => {
		const host = await listeners.loopback(env, port);
		if (closed) return;
		if (!host) return close();
		connection = env.connectTcp(host, port, { data: (bytes) => peer?.send(bytes), closed: close });
		for (const bytes of early.splice(0)) connection.write(bytes);
	};
	return {
		open(to) {
			peer = to;
			void connect();
		},
		data(bytes) {
			if (closed) return;
			if (connection) return connection.write(bytes);
			earlyBytes += bytes.length;
			if (earlyBytes <= MAX_EARLY) early.push(bytes);
			else close();
		},
		close,
	};
}
