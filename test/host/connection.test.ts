import { expect, test } from "bun:test";
import { ServerConnection, type ServerFault } from "../../src/host/connection.ts";
import type { ConnectionState } from "../../src/protocol/channel.ts";
import { MAX_SERVER_FRAME_CHARS } from "../../src/protocol/channel-kinds.ts";
import { CLOSE_CODES } from "../../src/protocol/codes.ts";
import { socketServer } from "../support/socket-server.ts";
import { waitUntil } from "../support/wait.ts";

test("a socket the server closed as too slow is reconnected at once, not taken for a sign-out", async () => {
	let sockets = 0;
	const server = socketServer({
		open(ws) {
			sockets++;
			if (sockets === 1) ws.close(CLOSE_CODES.tooSlow, "too slow: 16.0 MiB were waiting");
			else ws.send("hello again");
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

test("a frame larger than the UI takes is never relayed: the socket is closed, the fault told, and each retry waits longer", async () => {
	const closes: number[] = [];
	let sockets = 0;
	const server = socketServer({
		open(ws) {
			sockets++;
			ws.send("x".repeat(MAX_SERVER_FRAME_CHARS + 1));
		},
		close(_ws, code) {
			closes.push(code);
		},
	});
	const frames: number[] = [];
	const faults: ServerFault[] = [];
	const threeFaults = Promise.withResolvers<void>();
	const connection = new ServerConnection({
		origin: () => `http://127.0.0.1:${server.port}`,
		credentials: () => ({}),
		onFrame: (text) => frames.push(text.length),
		onState: () => {},
		onSignedOut: () => {},
		faultBackoffMs: 20,
		onFault: (fault) => {
			faults.push(fault);
			if (faults.length === 3) threeFaults.resolve();
		},
	});
	try {
		connection.connect();
		await threeFaults.promise;
		expect(frames).toEqual([]);
		expect(faults.map((f) => f.retryMs)).toEqual([20, 40, 80]);
		expect(faults[0]!.text).toBe("The server sent a frame of 8.0 MiB; p2 takes at most 8 MiB.");
		await waitUntil(() => closes.length >= 3, "the server to see the sockets closed");
		expect(closes.slice(0, 3)).toEqual([1009, 1009, 1009]);
		expect(sockets).toBe(3);
	} finally {
		connection.close();
		server.stop(true);
	}
});
