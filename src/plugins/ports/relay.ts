/**
 * A port of the server's machine, relayed to the visitor's (their launcher listens on a loopback port and opens
 * one relay per connection): bytes both ways between the launcher's WebSocket and a TCP connection to the port
 * on this machine's loopback (a port listening now), or to a port on the loopback of the session's SSH machine
 * through ssh's stdio forwarding. Owners, and full guests of the session while the owner allows it.
 */
import type { Socket } from "bun";
import { isOwnerRole } from "../../protocol/roles.ts";
import {
	type Principal,
	type Relay,
	type RelayAccept,
	type RelayPeer,
	type ServerContext,
	SshEnvironment,
} from "../../server/plugin.ts";
import { listeningPorts } from "./listening.ts";

export const RELAY_PATH = "/ports/relay";
const MAX_PENDING = 4 * 1024 * 1024;

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

export function relayAccept(ctx: ServerContext, guests: GuestRelays): RelayAccept {
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
		if (envName !== "local") {
			// A session's SSH machine: through its shared connection to the machine's loopback (a port nothing
			// listens on there ends the relay at once).
			const env = ctx.environments.has(envName) ? ctx.environments.get(envName) : undefined;
			if (!(env instanceof SshEnvironment)) return { refuse: 404, why: `no environment ${envName}` };
			ctx.log.info(
				`session:${session}`,
				`port ${port} of ${envName} forwarded to ${who} machine (a connection opened)`,
			);
			return track((onClosed) => sshRelay(env, port, onClosed));
		}
		let host: string | null = null;
		try {
			for (const p of listeningPorts()) if (p.port === port) host ??= loopbackFor(p.address);
		} catch {
			return { refuse: 501, why: "ports cannot be listed on this server" };
		}
		if (!host) return { refuse: 404, why: `nothing listens on port ${port} here` };
		const loopback = host;
		ctx.log.info(`session:${session}`, `port ${port} forwarded to ${who} machine (a connection opened)`);
		return track((onClosed) => tcpRelay(loopback, port, onClosed));
	};
}

/** Bytes both ways between the launcher's WebSocket and ssh's stdio forwarding to the machine's port. */
function sshRelay(env: SshEnvironment, port: number, onClosed: () => void): Relay {
	let peer: RelayPeer | undefined;
	let closed = false;
	const child = env.tcpTunnel(port);
	const close = () => {
		if (closed) return;
		closed = true;
		onClosed();
		child.kill();
		peer?.close();
	};
	child.on("close", close);
	child.on("error", close);
	child.stdin?.on("error", close);
	return {
		open(to) {
			// ssh may have ended before the launcher's socket opened (nothing listens there): end this one too.
			if (closed) return to.close();
			peer = to;
			child.stdout?.on("data", (bytes: Buffer) => peer?.send(new Uint8Array(bytes)));
		},
		data(bytes) {
			if (closed || !child.stdin) return;
			// What the machine has not taken yet is bounded as for this device's ports.
			if (child.stdin.writableLength > MAX_PENDING) return close();
			child.stdin.write(bytes);
		},
		close,
	};
}

function tcpRelay(hostname: string, port: number, onClosed?: () => void): Relay {
	let peer: RelayPeer | undefined;
	let socket: Socket | undefined;
	let closed = false;
	const pending: Uint8Array[] = [];
	let pendingBytes = 0;
	/** What the socket did not take yet (it takes what it can; the rest is written on drain). */
	const unwritten: Uint8Array[] = [];
	const write = (s: Socket, bytes: Uint8Array) => {
		if (unwritten.length) {
			unwritten.push(bytes);
			return;
		}
		const n = s.write(bytes);
		if (n < bytes.length) unwritten.push(bytes.subarray(Math.max(0, n)));
	};
	const drain = (s: Socket) => {
		while (unwritten.length) {
			const bytes = unwritten[0] as Uint8Array;
			const n = s.write(bytes);
			if (n < bytes.length) {
				unwritten[0] = bytes.subarray(Math.max(0, n));
				return;
			}
			unwritten.shift();
		}
	};
	const close = () => {
		if (closed) return;
		closed = true;
		onClosed?.();
		socket?.end();
		peer?.close();
	};
	return {
		open(to) {
			peer = to;
			Bun.connect({
				hostname,
				port,
				socket: {
					open(s) {
						socket = s;
						for (const bytes of pending.splice(0)) write(s, bytes);
						pendingBytes = 0;
					},
					drain,
					data(_s, bytes) {
						peer?.send(new Uint8Array(bytes));
					},
					close,
					error: close,
					connectError: close,
				},
			}).catch(close);
		},
		data(bytes) {
			if (closed) return;
			if (socket) return write(socket, bytes);
			pendingBytes += bytes.length;
			if (pendingBytes <= MAX_PENDING) pending.push(bytes);
			else close();
		},
		close,
	};
}
