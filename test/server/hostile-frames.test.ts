import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chatContract } from "../../src/plugins/chat/contract.ts";
import { DEVICE_TOKEN_HEADER, SOCKET_PATH } from "../../src/protocol/server-info.ts";
import { startTestServer, type TestClient, type TestServer } from "../support/p2-server.ts";

let ts: TestServer;
let c: TestClient;
let session = "";
const cwd = realpathSync(mkdtempSync(join(tmpdir(), "p2-hostile-")));

beforeAll(async () => {
	ts = await startTestServer();
	session = ts.server.ctx.catalog.create({ cwd }).id;
	c = await ts.connect();
	// Handle 1 is a real chat; every hostile frame below must leave it untouched.
	await c.raw(
		JSON.stringify({ t: "open", h: 1, object: "chat", version: 1, input: { session, conversation: "main" } }),
	);
});

afterAll(async () => {
	await ts.stop();
	rmSync(cwd, { recursive: true, force: true });
});

const HOSTILE: [string, string, Record<string, unknown>][] = [
	["malformed JSON", "{not json", { t: "refused", code: "bad_frame" }],
	["a JSON array", "[1,2,3]", { t: "refused", code: "bad_frame" }],
	["an unknown frame type", JSON.stringify({ t: "explode" }), { t: "refused", code: "bad_frame" }],
	["a string handle", JSON.stringify({ t: "close", h: "1" }), { t: "refused", code: "bad_frame" }],
	[
		"an unknown object",
		JSON.stringify({ t: "open", h: 9, object: "root-shell", version: 1, input: {} }),
		{ t: "refused", h: 9, code: "unknown_object" },
	],
	[
		"an unsupported version",
		JSON.stringify({ t: "open", h: 9, object: "chat", version: 99, input: { session, conversation: "main" } }),
		{ t: "refused", h: 9, code: "unsupported_version" },
	],
	[
		"a bad input (path-like session id)",
		JSON.stringify({
			t: "open",
			h: 9,
			object: "chat",
			version: 1,
			input: { session: "../../etc", conversation: "main" },
		}),
		{ t: "refused", h: 9, code: "bad_input" },
	],
	[
		"a reused handle",
		JSON.stringify({ t: "open", h: 1, object: "access", version: 1, input: {} }),
		{ t: "refused", h: 1, code: "handle_in_use" },
	],
	[
		"a method name that is not a name",
		JSON.stringify({ t: "call", h: 1, id: 1, method: "__proto__", args: null }),
		{ t: "refused", code: "bad_frame" },
	],
	[
		"an unknown method",
		JSON.stringify({ t: "call", h: 1, id: 1, method: "explode", args: null }),
		{ t: "result", h: 1, id: 1, ok: false, code: "unknown_method" },
	],
	[
		"wrong argument types",
		JSON.stringify({
			t: "call",
			h: 1,
			id: 2,
			method: "send",
			args: { text: 42, mode: "steer", requestId: "abcdefgh" },
		}),
		{ t: "result", h: 1, id: 2, ok: false, code: "bad_args" },
	],
	[
		"an empty message",
		JSON.stringify({
			t: "call",
			h: 1,
			id: 3,
			method: "send",
			args: { text: "", mode: "steer", requestId: "abcdefgh" },
		}),
		{ t: "result", h: 1, id: 3, ok: false, code: "bad_args" },
	],
	[
		"a call on a handle that is not open",
		JSON.stringify({ t: "call", h: 77, id: 4, method: "send", args: null }),
		{ t: "result", h: 77, id: 4, ok: false, code: "unknown_handle" },
	],
	[
		"a frame over 1 MiB",
		JSON.stringify({ t: "call", h: 1, id: 5, method: "send", args: { text: "x".repeat(1_100_000) } }),
		{ t: "refused", code: "too_large" },
	],
];

describe("hostile frames over a real WebSocket", () => {
	for (const [name, frame, expected] of HOSTILE) {
		test(`${name} is refused and changes nothing`, async () => {
			const answer = await c.raw(frame);
			expect(answer).toMatchObject(expected);
			const store = ts.server.ctx.stores.get(session);
			expect(store.count("main")).toBe(0);
			expect(store.queued("main")).toEqual([]);
		});
	}

	test("a binary frame is refused and the socket survives", async () => {
		const answer = await new Promise((resolve) => {
			c.socket.addEventListener("message", (e) => resolve(JSON.parse(String(e.data))), { once: true });
			c.socket.send(new Uint8Array([1, 2, 3]));
		});
		expect(answer).toMatchObject({ t: "refused", code: "bad_frame" });
		const access = await c.raw(JSON.stringify({ t: "open", h: 20, object: "access", version: 1, input: {} }));
		expect(access).toMatchObject({ t: "snapshot", h: 20, state: { role: "deviceOwner" } });
	});

	test("a view-only guest calling send is refused and nothing is stored", async () => {
		const sent: Record<string, unknown>[] = [];
		const connection = ts.server.ctx.host.connect(
			{ role: "view", id: "guest:v", name: "viewer", session },
			{ send: (text) => sent.push(JSON.parse(text)) },
		);
		await connection.receive(
			JSON.stringify({ t: "open", h: 1, object: "chat", version: 1, input: { session, conversation: "main" } }),
		);
		await connection.receive(
			JSON.stringify({
				t: "call",
				h: 1,
				id: 1,
				method: "send",
				args: { text: "hi", mode: "steer", requestId: "abcdefgh" },
			}),
		);
		expect(sent.at(-1)).toMatchObject({ t: "result", ok: false, code: "forbidden" });
		expect(ts.server.ctx.stores.get(session).count("main")).toBe(0);
	});

	test("a socket without the device token is refused; a wrong token too", async () => {
		const url = `${ts.server.origin.replace(/^http/, "ws")}${SOCKET_PATH}`;
		for (const headers of [{}, { [DEVICE_TOKEN_HEADER]: "x".repeat(43) }]) {
			const code = await new Promise((resolve) => {
				const ws = new WebSocket(url, { headers } as unknown as string[]);
				ws.addEventListener("open", () => resolve("opened"));
				ws.addEventListener("error", () => resolve("refused"));
			});
			expect(code).toBe("refused");
		}
	});

	test("after all of it the connection still works, and so does a new one", async () => {
		const again = await c.raw(
			JSON.stringify({ t: "open", h: 30, object: "chat", version: 1, input: { session, conversation: "main" } }),
		);
		expect(again).toMatchObject({ t: "snapshot", h: 30, state: { entries: [] } });
		const fresh = await ts.connect();
		const ref = await fresh.open(chatContract, { session, conversation: "main" });
		expect(ref.state?.entries).toEqual([]);
	});
});
