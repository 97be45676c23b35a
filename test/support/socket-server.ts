import type { Server, ServerWebSocket } from "bun";
import { SOCKET_PATH } from "../../src/protocol/server-info.ts";

/**
 * A stand-in p2 server for the launcher's connection: it upgrades the object socket, answers every other
 * request 200 (the launcher's sign-in check), and lets the test play the server's side of each socket.
 */
export function socketServer(handlers: {
	open(ws: ServerWebSocket<undefined>): void;
	close?(ws: ServerWebSocket<undefined>, code: number): void;
}): Server<undefined> {
	return Bun.serve({
		hostname: "127.0.0.1",
		port: 0,
		fetch(req, srv) {
			if (new URL(req.url).pathname === SOCKET_PATH && srv.upgrade(req)) return undefined;
			return new Response(null, { status: 200 });
		},
		websocket: {
			// Larger than any frame a test sends, so the client is the one that refuses it.
			maxPayloadLength: 128 * 1024 * 1024,
			open: (ws) => handlers.open(ws),
			message() {},
			close: (ws, code) => handlers.close?.(ws, code),
		},
	});
}
