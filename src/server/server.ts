import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Server, ServerWebSocket } from "bun";
import { CLOSE_CODES } from "../protocol/codes.ts";
import { EXIT_PATH, SERVER_INFO_FILE, type ServerInfo, SOCKET_PATH } from "../protocol/server-info.ts";
import { AgentExtensions } from "./agent/extensions.ts";
import {
	isLoopbackHostname,
	isWildcardHostname,
	type OwnOrigins,
	ownOrigins,
	primaryOrigin,
} from "./auth/own-origins.ts";
import { addOwnerRoutes } from "./auth/owner-routes.ts";
import { OwnerStore } from "./auth/owner-store.ts";
import { resolvePrincipal } from "./auth/principals.ts";
import { newToken } from "./auth/tokens.ts";
import { addBundleRoute } from "./bundle-route.ts";
import {
	type CoreServices,
	createServices,
	damagedReporter,
	logOptions,
	type ServicesOptions,
} from "./core-services.ts";
import { json, problem } from "./http-util.ts";
import { describe, ServerLog } from "./log.ts";
import { type Connection, ObjectHost } from "./objects/host.ts";
import type { Principal } from "./objects/principal.ts";
import type { GuestAdmission, ServerContext, ServerPlugin } from "./plugin.ts";
import { type Relay, Relays } from "./relays.ts";
import { type RouteRequest, Routes } from "./routes.ts";
import { Services } from "./services.ts";
import { ensurePrivateDir, writePrivateFile } from "./store/data-dir.ts";
import { type DataDirLock, lockDataDir } from "./store/data-dir-lock.ts";

export interface GuestBundle {
	readonly source: string;
	readonly hash: string;
}

export interface ServerOptions extends ServicesOptions {
	readonly dataDir: string;
	readonly hostname?: string;
	readonly port?: number;
	readonly tls?: { readonly cert: string; readonly key: string };
	/** Serve plain HTTP on a non-loopback address because a TLS proxy sits in front. */
	readonly behindProxy?: boolean;
	/** The origin clients use when it is not the bound address's (behind a proxy, or bound to every address). */
	readonly publicOrigin?: string;
	readonly plugins: readonly ServerPlugin[];
	readonly bundle?: () => Promise<GuestBundle>;
	/** Development mode: owners may have the guest bundle rebuilt from the sources while the server runs. */
	readonly devReload?: boolean;
	/** Write server.json (port + device token) so this device's launchers can find the server. */
	readonly advertise?: boolean;
	/** Bytes that may wait for one client before it is closed as too slow; SOCKET_BUFFER_LIMIT by default. */
	readonly socketBufferLimit?: number;
	/** Which build of p2 this is, for server.json. */
	readonly build?: string;
	/**
	 * A server a launcher started (`p2 serve --device`): server.json says so, and this device's owner may ask
	 * it to make way (for another build); the answer says whether it will.
	 */
	readonly onExitRequest?: () => "stopping" | "busy";
}

export interface P2Server {
	readonly origin: string;
	readonly port: number;
	readonly deviceToken: string;
	readonly ctx: ServerContext;
	mintOwnerLink(): string;
	stop(): Promise<void>;
}

/** Bytes that may wait for one slow client before it is closed (CLOSE_CODES.tooSlow) rather than sent more. */
export const SOCKET_BUFFER_LIMIT = 16 * 1024 * 1024;
/** Where Bun itself would start dropping frames; only a socket the server failed to close could get there. */
const BACKPRESSURE_LIMIT = 1024 * 1024 * 1024;

interface SocketData {
	principal: Principal;
	/** A plugin's byte relay rather than the object socket. */
	relay?: Relay;
	connection?: Connection;
	/** Set once the server closed the socket: nothing more is sent on it. */
	closing?: boolean;
	/** Characters in the largest frame sent on this socket. */
	largestFrame?: number;
}

export class ServerConfigError extends Error {
	override name = "ServerConfigError";
}

export async function startServer(options: ServerOptions): Promise<P2Server> {
	const hostname = options.hostname ?? "127.0.0.1";
	if (!isLoopbackHostname(hostname) && !options.tls && !options.behindProxy) {
		throw new ServerConfigError(
			`refusing to serve plain HTTP on ${hostname}: pass --tls-cert and --tls-key, or --behind-proxy when a TLS proxy is in front`,
		);
	}
	// Same-origin checks need the origin clients use; it is never taken from a request's Host header.
	if (options.publicOrigin === undefined && (options.behindProxy || isWildcardHostname(hostname))) {
		throw new ServerConfigError(
			`${options.behindProxy ? "behind a proxy" : `listening on every address (${hostname})`} the server cannot tell its own origin: pass --public-origin with the origin clients use`,
		);
	}
	ensurePrivateDir(options.dataDir);
	// Before any store is opened: a second server's recovery would take this one's live runs for crashed ones.
	const lock = lockDataDir(options.dataDir);
	try {
		return await serve(options, hostname, lock);
	} catch (error) {
		lock.release();
		throw error;
	}
}

async function serve(options: ServerOptions, hostname: string, lock: DataDirLock): Promise<P2Server> {
	const log = new ServerLog(options.dataDir, logOptions(options, options.env ?? process.env));
	const owners = OwnerStore.open(options.dataDir, damagedReporter(log));
	let core: CoreServices | undefined;
	const registered: ServerPlugin[] = [];
	// At stop, or when the server cannot start (a plugin failed, the port is taken): nothing stays open.
	const closeAll = async () => {
		for (const plugin of registered.splice(0)) await plugin.close?.();
		await core?.close();
		owners.close();
	};
	try {
		core = await createServices(options, log);
		return await listen(options, hostname, lock, { owners, core, registered, closeAll });
	} catch (error) {
		await closeAll().catch((problem) => log.error("server", describe("closing after a failed start failed", problem)));
		throw error;
	}
}

interface Opened {
	readonly owners: OwnerStore;
	readonly core: CoreServices;
	/** Plugins are added as they register, so that one that fails half way is closed too. */
	readonly registered: ServerPlugin[];
	closeAll(): Promise<void>;
}

async function listen(
	options: ServerOptions,
	hostname: string,
	lock: DataDirLock,
	{ owners, core, registered, closeAll }: Opened,
): Promise<P2Server> {
	const host = new ObjectHost();
	host.problem = (text, error, notice) => core.log.error("server", describe(text, error), notice);
	const routes = new Routes();
	const relays = new Relays();
	let admission: GuestAdmission | undefined;
	const ctx: ServerContext = {
		...core,
		host,
		routes,
		relays,
		owners: {
			list: () => owners.list(),
			signOut(id) {
				const ended = owners.logoutId(id);
				if (ended)
					host.reprincipal(
						(p) => p.id === `owner:${id}`,
						() => null,
					);
				return ended;
			},
			signOutAll(keep) {
				const ended = owners.logoutAll(keep);
				host.reprincipal(
					(p) => p.role === "owner" && p.id !== `owner:${keep}`,
					() => null,
				);
				return ended;
			},
			mintLink: () => `/owner#${owners.mintLink()}`,
		},
		services: new Services(),
		agent: new AgentExtensions(),
		guestBundle: options.devReload
			? {
					async rebuild() {
						const before = bundle ? await bundle.catch(() => undefined) : undefined;
						bundle = undefined;
						const after = await loadBundle();
						return { hash: after.hash, changed: after.hash !== before?.hash };
					},
				}
			: null,
		admitGuests(admit) {
			if (admission) throw new Error("guests are admitted by one plugin only");
			admission = admit;
		},
	};
	let bundle: Promise<GuestBundle> | undefined;
	const loadBundle = () => {
		bundle ??= (options.bundle ?? (() => Promise.reject(new Error("no guest bundle configured"))))();
		bundle.catch(() => {
			bundle = undefined;
		});
		return bundle;
	};
	// The core's routes first: a plugin cannot take one of their paths.
	addOwnerRoutes(routes, owners, host);
	addBundleRoute(routes, loadBundle);
	const onExitRequest = options.onExitRequest;
	if (onExitRequest) {
		routes.add(EXIT_PATH, {
			POST(_req, { principal }) {
				if (principal?.role !== "deviceOwner") return problem(403, "only this device's owner");
				return onExitRequest() === "stopping" ? json({ stopping: true }, 202) : problem(409, "runs are live");
			},
		});
	}
	for (const plugin of options.plugins) {
		registered.push(plugin);
		await plugin.register(ctx);
	}
	const deviceToken = newToken();
	core.log.addSecret(deviceToken);
	const bufferLimit = options.socketBufferLimit ?? SOCKET_BUFFER_LIMIT;
	const scheme = options.tls ? "https" : "http";

	// Set once the server listens (the port may be chosen then); no request arrives before.
	let own: OwnOrigins | undefined;
	const sameOrigin = (req: Request) => own?.isOwnOrigin(req.headers.get("origin")) === true;
	const secure = options.tls !== undefined || options.behindProxy === true;

	// A guest of a session that is gone or archived is nobody, whatever the plugin that admitted them says.
	const guest = (cookie: string): Principal | null => {
		const principal = admission?.(cookie) ?? null;
		const record = principal?.session === undefined ? undefined : core.catalog.get(principal.session);
		return principal && record && !record.archived ? principal : null;
	};
	const sources = { deviceToken, owners, guest };

	const requestOf = (req: Request, srv: Server<SocketData>): RouteRequest => {
		const peer = srv.requestIP(req)?.address;
		let principal: { value: Principal | null } | undefined;
		return {
			get principal() {
				principal ??= { value: resolvePrincipal(req, peer, sources) };
				return principal.value;
			},
			sameOrigin: sameOrigin(req),
			peer,
			secure,
		};
	};

	/** Every request passes here first: only a host name of this server's is answered (DNS rebinding). */
	const checked =
		(answer: (req: Request, srv: Server<SocketData>) => Response | undefined | Promise<Response | undefined>) =>
		async (req: Request, srv: Server<SocketData>): Promise<Response | undefined> => {
			try {
				if (own?.acceptsHost(req.headers.get("host")) !== true) {
					return problem(
						403,
						"this server does not answer to that host name (through a tunnel or proxy, serve with --public-origin)",
					);
				}
				return await answer(req, srv);
			} catch (error) {
				core.log.error("server", describe(`request ${new URL(req.url).pathname} failed`, error));
				return problem(500, "internal error");
			}
		};

	const socket = (req: Request, srv: Server<SocketData>): Response | undefined => {
		const principal = resolvePrincipal(req, srv.requestIP(req)?.address, sources);
		if (!principal) return problem(401, "sign in first");
		if (req.headers.get("origin") !== null && !sameOrigin(req)) return problem(403, "cross-origin socket refused");
		if (srv.upgrade(req, { data: { principal } })) return undefined;
		return problem(400, "expected a WebSocket upgrade");
	};

	// A relay is its principal's as much as a connection is: one whose access ends or changes closes.
	const relaySockets = new Set<ServerWebSocket<SocketData>>();
	host.onReprincipal((filter, next) => {
		for (const ws of relaySockets) {
			const before = ws.data.principal;
			if (!filter(before)) continue;
			const after = next(before);
			if (after && after.role === before.role && after.session === before.session) continue;
			relaySockets.delete(ws);
			ws.data.relay?.close();
			ws.close(CLOSE_CODES.accessEnded, "access ended");
		}
	});

	const served: Record<string, (req: Request, srv: Server<SocketData>) => Promise<Response | undefined>> = {
		[SOCKET_PATH]: checked(socket),
	};
	for (const [path, accept] of relays.entries()) {
		served[path] = checked((req, srv) => {
			const principal = resolvePrincipal(req, srv.requestIP(req)?.address, sources);
			if (!principal) return problem(401, "sign in first");
			if (req.headers.get("origin") !== null && !sameOrigin(req)) return problem(403, "cross-origin socket refused");
			const relay = accept(principal, new URL(req.url));
			if (Object.hasOwn(relay, "refuse")) {
				const refused = relay as { refuse: number; why: string };
				return problem(refused.refuse, refused.why);
			}
			const opened = relay as Relay;
			if (srv.upgrade(req, { data: { principal, relay: opened } })) return undefined;
			opened.close();
			return problem(400, "expected a WebSocket upgrade");
		});
	}
	for (const [path, handler] of routes.entries()) {
		served[path] = checked((req, srv) => handler(req, requestOf(req, srv)));
	}

	const server: Server<SocketData> = Bun.serve<SocketData>({
		hostname,
		port: options.port ?? 0,
		...(options.tls ? { tls: { cert: Bun.file(options.tls.cert), key: Bun.file(options.tls.key) } } : {}),
		routes: served,
		fetch: checked(() => problem(404, "not found")),
		websocket: {
			// Larger than a frame may be, so an oversized frame is refused by the protocol and the socket survives.
			maxPayloadLength: 16 * 1024 * 1024,
			idleTimeout: 120,
			sendPings: true,
			// Bun drops a frame when more than this already waits (send() returns 0); the server closes first.
			backpressureLimit: BACKPRESSURE_LIMIT,
			closeOnBackpressureLimit: false,
			open(ws: ServerWebSocket<SocketData>) {
				const relay = ws.data.relay;
				if (relay) {
					relaySockets.add(ws);
					relay.open({
						send(bytes) {
							if (ws.data.closing) return;
							if (ws.getBufferedAmount() > bufferLimit || ws.send(bytes) === 0) {
								ws.data.closing = true;
								ws.close(CLOSE_CODES.tooSlow, "too slow");
								relay.close();
							}
						},
						close() {
							if (ws.data.closing) return;
							ws.data.closing = true;
							ws.close();
						},
					});
					return;
				}
				// The first client is in, past its start's requests (its bundle, its sign-in): a new session's store
				// is made ahead of need now, before its UI asks for one.
				setImmediate(() => core.stores.keepSpare());
				const end = (code: number, reason: string) => {
					if (ws.data.closing) return;
					ws.data.closing = true;
					ws.close(code, reason);
					ws.data.connection?.close();
				};
				ws.data.connection = host.connect(ws.data.principal, {
					// A frame is sent whole or the socket is closed: a client never silently misses one. The largest
					// frame sent so far may wait on top of the limit, so that a client reading at a normal pace is not
					// closed while it takes in one frame larger than the limit (a long answer committed).
					send(text) {
						if (ws.data.closing) return;
						const waiting = ws.getBufferedAmount();
						ws.data.largestFrame = Math.max(ws.data.largestFrame ?? 0, text.length);
						if (waiting > bufferLimit + ws.data.largestFrame || ws.send(text) === 0) {
							end(CLOSE_CODES.tooSlow, `too slow: ${(waiting / 1024 / 1024).toFixed(1)} MiB were waiting`);
						}
					},
					close: (why) => {
						if (why) end(why.code, why.reason);
					},
				});
			},
			message(ws, message) {
				if (ws.data.relay) {
					ws.data.relay.data(typeof message === "string" ? new TextEncoder().encode(message) : message);
					return;
				}
				void ws.data.connection?.receive(message);
			},
			close(ws) {
				relaySockets.delete(ws);
				ws.data.relay?.close();
				ws.data.connection?.close();
			},
		},
	});
	const binding = { scheme, hostname, port: server.port ?? 0, publicOrigin: options.publicOrigin } as const;
	own = ownOrigins(binding);
	const origin = primaryOrigin(binding);
	lock.setOrigin(origin);
	core.log.info("server", `listening on ${origin}${options.build ? ` (build ${options.build})` : ""}`);
	const infoPath = join(options.dataDir, SERVER_INFO_FILE);
	if (options.advertise) {
		const info: ServerInfo = {
			origin,
			port: server.port ?? 0,
			pid: process.pid,
			deviceToken,
			...(options.build ? { build: options.build } : {}),
			...(options.onExitRequest ? { auto: true } : {}),
		};
		writePrivateFile(infoPath, `${JSON.stringify(info)}\n`);
		// A launcher that finds this server asks for the UI bundle next: have it ready (read, hashed) by then.
		if (options.bundle) setImmediate(() => void loadBundle().catch(() => {}));
	}

	return {
		origin,
		port: server.port ?? 0,
		deviceToken,
		ctx,
		mintOwnerLink: () => `${origin}/owner#${owners.mintLink()}`,
		async stop() {
			server.stop(true);
			await closeAll();
			if (options.advertise && existsSync(infoPath)) {
				try {
					if (JSON.parse(readFileSync(infoPath, "utf8")).deviceToken === deviceToken) rmSync(infoPath);
				} catch {
					// Another server replaced it; leave theirs.
				}
			}
			lock.release();
		},
	};
}
