import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { type } from "arktype";
import type { Server, ServerWebSocket } from "bun";
import { CLOSE_CODES } from "../protocol/codes.ts";
import { BUNDLE_PATH, OWNER_COOKIE, SERVER_INFO_FILE, type ServerInfo, SOCKET_PATH } from "../protocol/server-info.ts";
import {
	isLoopbackHostname,
	isWildcardHostname,
	type OwnOrigins,
	ownOrigins,
	primaryOrigin,
} from "./auth/own-origins.ts";
import { OwnerStore } from "./auth/owner-store.ts";
import { readCookie, resolvePrincipal } from "./auth/principals.ts";
import { newToken, TOKEN_PATTERN } from "./auth/tokens.ts";
import { json, problem, readBoundedText } from "./http-util.ts";
import { type Connection, ObjectHost } from "./objects/host.ts";
import type { Principal } from "./objects/principal.ts";
import type { ServerContext, ServerPlugin } from "./plugin.ts";
import { createServices, type ServicesOptions } from "./services.ts";
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
	/** Write server.json (port + device token) so this device's launchers can find the server. */
	readonly advertise?: boolean;
	/** Bytes that may wait for one client before it is closed as too slow; SOCKET_BUFFER_LIMIT by default. */
	readonly socketBufferLimit?: number;
}

export interface P2Server {
	readonly origin: string;
	readonly port: number;
	readonly deviceToken: string;
	readonly ctx: ServerContext;
	mintOwnerLink(): string;
	stop(): Promise<void>;
}

const MAX_BUNDLE_BYTES = 8 * 1024 * 1024;
/** Bytes that may wait for one slow client before it is closed (CLOSE_CODES.tooSlow) rather than sent more. */
export const SOCKET_BUFFER_LIMIT = 16 * 1024 * 1024;
/** Where Bun itself would start dropping frames; only a socket the server failed to close could get there. */
const BACKPRESSURE_LIMIT = 1024 * 1024 * 1024;
const RedeemBody = type({ token: TOKEN_PATTERN });

interface SocketData {
	principal: Principal;
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
	const owners = OwnerStore.open(options.dataDir);
	const host = new ObjectHost();
	const services = await createServices(options);
	const ctx: ServerContext = { ...services, host };
	for (const plugin of options.plugins) await plugin.register(ctx);
	const deviceToken = newToken();
	const bufferLimit = options.socketBufferLimit ?? SOCKET_BUFFER_LIMIT;
	const scheme = options.tls ? "https" : "http";
	let bundle: Promise<GuestBundle> | undefined;
	const loadBundle = () => {
		bundle ??= (options.bundle ?? (() => Promise.reject(new Error("no guest bundle configured"))))();
		bundle.catch(() => {
			bundle = undefined;
		});
		return bundle;
	};

	// Set once the server listens (the port may be chosen then); no request arrives before.
	let own: OwnOrigins | undefined;
	const sameOrigin = (req: Request) => own?.isOwnOrigin(req.headers.get("origin")) === true;
	const secureCookie = options.tls !== undefined || options.behindProxy === true;

	const closeOwnerConnections = (match: (p: Principal) => boolean) => host.reprincipal(match, () => null);
	const guest = (cookie: string): Principal | null => {
		const g = services.shares.check(cookie);
		const record = g ? services.catalog.get(g.session) : undefined;
		if (!g || !record || record.archived) return null;
		return { role: g.access, id: `guest:${g.id}`, name: g.name, session: g.session };
	};
	const sources = { deviceToken, owners, guest };

	async function handle(req: Request, srv: Server<SocketData>): Promise<Response | undefined> {
		if (own?.acceptsHost(req.headers.get("host")) !== true) {
			return problem(
				403,
				"this server does not answer to that host name (through a tunnel or proxy, serve with --public-origin)",
			);
		}
		const url = new URL(req.url);
		const peer = srv.requestIP(req)?.address;
		switch (url.pathname) {
			case SOCKET_PATH: {
				const principal = resolvePrincipal(req, peer, sources);
				if (!principal) return problem(401, "sign in first");
				const origin = req.headers.get("origin");
				if (origin !== null && !sameOrigin(req)) return problem(403, "cross-origin socket refused");
				if (srv.upgrade(req, { data: { principal } })) return undefined;
				return problem(400, "expected a WebSocket upgrade");
			}
			case BUNDLE_PATH: {
				if (req.method !== "GET" && req.method !== "HEAD") return problem(405, "GET or HEAD");
				const principal = resolvePrincipal(req, peer, sources);
				if (!principal) return problem(401, "sign in first");
				if (req.method === "HEAD") return new Response(null, { status: 200, headers: { "cache-control": "no-store" } });
				const b = await loadBundle();
				if (b.source.length > MAX_BUNDLE_BYTES) return problem(500, "the guest bundle is too large");
				if (req.headers.get("if-none-match") === `"${b.hash}"`) return new Response(null, { status: 304 });
				return new Response(b.source, {
					headers: { "content-type": "text/javascript", etag: `"${b.hash}"`, "x-p2-bundle-hash": b.hash },
				});
			}
			case "/owner/redeem": {
				if (req.method !== "POST") return problem(405, "POST");
				if (!sameOrigin(req)) return problem(403, "cross-origin request refused");
				const text = await readBoundedText(req, 2048);
				let body: unknown;
				try {
					body = text === null ? null : JSON.parse(text);
				} catch {
					body = null;
				}
				const parsed = RedeemBody(body);
				if (parsed instanceof type.errors) return problem(400, "expected {token}");
				const redeemed = owners.redeem(parsed.token);
				if (!redeemed) return problem(403, "this owner link is not valid (used, expired or unknown)");
				const cookie = `${OWNER_COOKIE}=${redeemed.cookie}; HttpOnly; SameSite=Strict; Path=/; Max-Age=31536000${secureCookie ? "; Secure" : ""}`;
				return json({ role: "owner" }, 200, { "set-cookie": cookie });
			}
			case "/owner/check": {
				const cookie = readCookie(req, OWNER_COOKIE);
				const login = cookie ? owners.check(cookie) : null;
				return login ? json({ role: "owner" }) : problem(401, "not signed in");
			}
			case "/owner/logout":
			case "/owner/logout-all": {
				if (req.method !== "POST") return problem(405, "POST");
				if (!sameOrigin(req)) return problem(403, "cross-origin request refused");
				const cookie = readCookie(req, OWNER_COOKIE);
				const login = cookie ? owners.check(cookie) : null;
				if (!cookie || !login) return problem(401, "not signed in");
				if (url.pathname === "/owner/logout") {
					owners.logout(cookie);
					closeOwnerConnections((p) => p.id === `owner:${login.id}`);
				} else {
					owners.logoutAll();
					closeOwnerConnections((p) => p.role === "owner");
				}
				const clear = `${OWNER_COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0${secureCookie ? "; Secure" : ""}`;
				return json({ ok: true }, 200, { "set-cookie": clear });
			}
		}
		const request = {
			principal: resolvePrincipal(req, peer, sources),
			sameOrigin: sameOrigin(req),
			peer,
			secure: secureCookie,
		};
		for (const plugin of options.plugins) {
			const response = await plugin.route?.(req, ctx, request);
			if (response) return response;
		}
		return problem(404, "not found");
	}

	const server: Server<SocketData> = Bun.serve<SocketData>({
		hostname,
		port: options.port ?? 0,
		...(options.tls ? { tls: { cert: Bun.file(options.tls.cert), key: Bun.file(options.tls.key) } } : {}),
		async fetch(req, srv) {
			try {
				return await handle(req, srv);
			} catch (error) {
				console.error("request failed:", error);
				return problem(500, "internal error");
			}
		},
		websocket: {
			// Larger than a frame may be, so an oversized frame is refused by the protocol and the socket survives.
			maxPayloadLength: 16 * 1024 * 1024,
			idleTimeout: 120,
			sendPings: true,
			// Bun drops a frame when more than this already waits (send() returns 0); the server closes first.
			backpressureLimit: BACKPRESSURE_LIMIT,
			closeOnBackpressureLimit: false,
			open(ws: ServerWebSocket<SocketData>) {
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
					close: () => end(CLOSE_CODES.accessEnded, "access ended"),
				});
			},
			message(ws, message) {
				if (typeof message !== "string") {
					ws.send(JSON.stringify({ t: "refused", code: "bad_frame", message: "frames are text" }));
					return;
				}
				void ws.data.connection?.receive(message);
			},
			close(ws) {
				ws.data.connection?.close();
			},
		},
	});
	const binding = { scheme, hostname, port: server.port ?? 0, publicOrigin: options.publicOrigin } as const;
	own = ownOrigins(binding);
	const origin = primaryOrigin(binding);
	lock.setOrigin(origin);
	const infoPath = join(options.dataDir, SERVER_INFO_FILE);
	if (options.advertise) {
		const info: ServerInfo = { origin, port: server.port ?? 0, pid: process.pid, deviceToken };
		writePrivateFile(infoPath, `${JSON.stringify(info)}\n`);
	}

	return {
		origin,
		port: server.port ?? 0,
		deviceToken,
		ctx,
		mintOwnerLink: () => `${origin}/owner#${owners.mintLink()}`,
		async stop() {
			server.stop(true);
			for (const plugin of options.plugins) await plugin.close?.();
			await services.close();
			owners.close();
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
