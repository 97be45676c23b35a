/**
 * The server's WebSockets: the object socket (one `Connection` of the object host per socket) and the plugins'
 * byte relays. Each socket is its principal's: the upgrade resolves who it is, and a socket whose principal's
 * access ends or changes is closed.
 */
import type { Server, ServerWebSocket, WebSocketHandler } from "bun";
import { CLOSE_CODES } from "../protocol/codes.ts";
import { SOCKET_PATH } from "../protocol/server-info.ts";
import { problem } from "./http-util.ts";
import type { Connection, ObjectHost } from "./objects/host.ts";
import type { Principal } from "./objects/principal.ts";
import type { Relay, Relays } from "./relays.ts";

export interface SocketData {
	principal: Principal;
	/** A plugin's byte relay rather than the object socket. */
	relay?: Relay;
	connection?: Connection;
	/** Set once the server closed the socket: nothing more is sent on it. */
	closing?: boolean;
	/** Characters in the largest frame sent on this socket. */
	largestFrame?: number;
}

/** Where Bun itself would start dropping frames; only a socket the server failed to close could get there. */
const BACKPRESSURE_LIMIT = 1024 * 1024 * 1024;

export type Upgrade = (req: Request, srv: Server<SocketData>) => Response | undefined;

export interface SocketParts {
	readonly host: ObjectHost;
	readonly relays: Relays;
	/** Bytes that may wait for one client before it is closed as too slow. */
	readonly bufferLimit: number;
	/** Who a request is from (the device token, an owner's or a guest's cookie), or null. */
	principalOf(req: Request, srv: Server<SocketData>): Principal | null;
	sameOrigin(req: Request): boolean;
	/** The first client is in: a new session's store may be made ahead of need. */
	keepSpareStore(): void;
}

export class Sockets {
	readonly #parts: SocketParts;
	/** A relay is its principal's as much as a connection is: one whose access ends or changes closes. */
	readonly #relaySockets = new Set<ServerWebSocket<SocketData>>();

	constructor(parts: SocketParts) {
		this.#parts = parts;
		parts.host.onReprincipal((filter, next) => {
			for (const ws of this.#relaySockets) {
				const before = ws.data.principal;
				if (!filter(before)) continue;
				const after = next(before);
				if (after && after.role === before.role && after.session === before.session) continue;
				this.#relaySockets.delete(ws);
				ws.data.relay?.close();
				ws.close(CLOSE_CODES.accessEnded, "access ended");
			}
		});
	}

	/** The upgrade of each socket path: the object socket's, then each relay's. */
	upgrades(): Map<string, Upgrade> {
		const parts = this.#parts;
		const upgrades = new Map<string, Upgrade>();
		upgrades.set(SOCKET_PATH, (req, srv) => {
			const principal = parts.principalOf(req, srv);
			if (!principal) return problem(401, "sign in first");
			if (req.headers.get("origin") !== null && !parts.sameOrigin(req))
				return problem(403, "cross-origin socket refused");
			if (srv.upgrade(req, { data: { principal } })) return undefined;
			return problem(400, "expected a WebSocket upgrade");
		});
		for (const [path, accept] of parts.relays.entries()) {
			upgrades.set(path, (req, srv) => {
				const principal = parts.principalOf(req, srv);
				if (!principal) return problem(401, "sign in first");
				if (req.headers.get("origin") !== null && !parts.sameOrigin(req))
					return problem(403, "cross-origin socket refused");
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
		return upgrades;
	}

	handlers(): WebSocketHandler<SocketData> {
		const parts = this.#parts;
		const relaySockets = this.#relaySockets;
		return {
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
							if (ws.getBufferedAmount() > parts.bufferLimit || ws.send(bytes) === 0) {
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
				setImmediate(() => parts.keepSpareStore());
				const end = (code: number, reason: string) => {
					if (ws.data.closing) return;
					ws.data.closing = true;
					ws.close(code, reason);
					ws.data.connection?.close();
				};
				ws.data.connection = parts.host.connect(ws.data.principal, {
					// A frame is sent whole or the socket is closed: a client never silently misses one. The largest
					// frame sent so far may wait on top of the limit, so that a client reading at a normal pace is not
					// closed while it takes in one frame larger than the limit (a long answer committed).
					send(text) {
						if (ws.data.closing) return;
						const waiting = ws.getBufferedAmount();
						ws.data.largestFrame = Math.max(ws.data.largestFrame ?? 0, text.length);
						if (waiting > parts.bufferLimit + ws.data.largestFrame || ws.send(text) === 0) {
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
		};
	}
}
