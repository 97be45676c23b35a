import { expect, test } from "bun:test";
import { ServerConnection } from "../../src/host/connection.ts";
import type { ConnectionState } from "../../src/protocol/channel.ts";
import { CLOSE_CODES } from "../../src/protocol/codes.ts";
import { SOCKET_PATH } from "../../src/protocol/server-info.ts";

test("a socket the server closed as too slow is reconnected at once, not taken for a sign-out", async () => {
	let sockets = 0;
	const server = Bun.serve({
		hostname: "127.0.0.1",
		port: 0,
		fetch(req, srv) {
			if (new URL(req.url).pathname === SOCKET_PATH && srv.upgrade(req)) return undefined;
			return new Response(null, { status: 200 });
		},
		websocket: {
			open(ws) {
				sockets++;
				if (sockets === 1) ws.close(CLOSE_CODES.tooSlow, "too slow: 16.0 MiB were waiting");
				else ws.send("hello again");
			},
			message() {},
		},
	});
	const states: ConnectionState[] = [];
	let signedOut = false;
	let refreshed = 0;
	const frame = Promise.withResolvers<string>();
	const connection = new ServerConnection({
		origin: () => `http://127.0.0.1:${server.port}`,
		credentials: () => ({}),
		onFrame: (text) => frame.resolve(text),
		onState: (state) => states.push(state),
		onSignedOut: () => {
			signedOut = true;
		},
		beforeReconnect: async () => {
			refreshed++;
		},
	});
	try {
		connection.connect();
		expect(await frame.promise).toBe("hello again");
		expect(states).toEqual(["connecting", "open", "closed", "connecting", "open"]);
		expect(refreshed).toBe(1);
		expect(signedOut).toBe(false);
	} finally {
		connection.close();
		server.stop(true);
	}
});
