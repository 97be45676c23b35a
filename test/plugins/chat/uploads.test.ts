import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chatContract } from "../../../src/plugins/chat/contract.ts";
import { cleanName, sniffType } from "../../../src/plugins/chat/uploads.ts";
import { sessionsContract } from "../../../src/plugins/sessions/contract.ts";
import { DEVICE_TOKEN_HEADER } from "../../../src/protocol/server-info.ts";
import { startTestServer, type TestServer, waitForState } from "../../support/p2-server.ts";

let ts: TestServer;
let session = "";
const cwd = realpathSync(mkdtempSync(join(tmpdir(), "p2-uploads-")));
beforeAll(async () => {
	ts = await startTestServer();
	const c = await ts.connect();
	const sessions = await c.open(sessionsContract, {});
	session = (await sessions.call("create", { cwd })).id;
	c.close();
});
afterAll(() => ts.stop());

const post = (query: string, body: BodyInit, headers: Record<string, string> = {}) =>
	fetch(`${ts.server.origin}/upload?${query}`, {
		method: "POST",
		body,
		headers: { origin: ts.server.origin, [DEVICE_TOKEN_HEADER]: ts.server.deviceToken, ...headers },
	});

describe("uploads and messages with files", () => {
	test("the route: signed in, same origin, an existing session, a bounded body; the type from the bytes", async () => {
		expect((await post(`session=${session}&name=a.txt`, "x", { origin: "https://evil.example" })).status).toBe(403);
		expect(
			(
				await fetch(`${ts.server.origin}/upload?session=${session}&name=a.txt`, {
					method: "POST",
					body: "x",
					headers: { origin: ts.server.origin },
				})
			).status,
		).toBe(401);
		expect((await post("session=00000000-0000-4000-8000-000000000000&name=a.txt", "x")).status).toBe(404);
		expect((await post(`session=${session}&name=big.bin`, new Uint8Array(26 * 1024 * 1024))).status).toBe(413);
		const ok = await post(`session=${session}&name=${encodeURIComponent("../../notes.txt")}`, "hello file");
		expect(ok.status).toBe(200);
		expect(await ok.json()).toMatchObject({ name: "notes.txt", size: 10, mimeType: "text/plain" });
		expect(sniffType(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0]))).toBe("image/png");
		expect(sniffType(new Uint8Array([0xff, 0xfe, 0x00, 0x81]))).toBe("application/octet-stream");
		expect(cleanName("C:\\dir\\evil\x1b]0;x\x07.txt")).toBe("evil]0;x.txt");
	});

	test("a message with a text file and an image the model cannot take: the file in the message, the image named", async () => {
		const text = await (await post(`session=${session}&name=plan.md`, "step one\nstep two")).json();
		const png = await (
			await post(`session=${session}&name=shot.png`, new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2]))
		).json();
		const c = await ts.connect();
		const chat = await c.open(chatContract, { session, conversation: "main" });
		ts.fake.enqueue({ text: "Read it." });
		// Counted before the send: its request may arrive before the send's answer does.
		const next = ts.fake.requests.length + 1;
		await chat.call("send", { text: "look", mode: "steer", requestId: "req-files-1", attachments: [text.id, png.id] });
		const body = (await ts.fake.waitForRequest(next)) as { messages: { content: unknown }[] };
		const sent = JSON.stringify(body.messages.at(-1));
		expect(sent).toContain('<file name=\\"plan.md\\">\\nstep one\\nstep two\\n</file>');
		expect(sent).toContain("[image shot.png: fake-model does not take images]");
		await waitForState(chat, (s) => s.live === null);
		await expect(
			chat.call("send", {
				text: "",
				mode: "steer",
				requestId: "req-files-2",
				attachments: ["0a0a0a0a-0000-4000-8000-000000000000"],
			}),
		).rejects.toThrow("an attached file is gone");
		await expect(chat.call("send", { text: "  ", mode: "steer", requestId: "req-files-3" })).rejects.toThrow(
			"a message needs text or a file",
		);
		c.close();
	});

	test("files of a session: listed for whoever sees it, downloaded from the fixed route, never cross-origin", async () => {
		const sent = await (await post(`session=${session}&name=report.txt`, "the report")).json();
		const c = await ts.connect();
		const chat = await c.open(chatContract, { session, conversation: "main" });
		const { files } = await chat.call("files", null);
		expect(files[0]).toMatchObject({ id: sent.id, name: "report.txt", size: 10 });
		c.close();
		const get = (query: string, headers: Record<string, string> = {}) =>
			fetch(`${ts.server.origin}/download?${query}`, {
				headers: { [DEVICE_TOKEN_HEADER]: ts.server.deviceToken, ...headers },
			});
		const ok = await get(`session=${session}&id=${sent.id}`, { origin: ts.server.origin });
		expect(ok.status).toBe(200);
		expect(await ok.text()).toBe("the report");
		expect(decodeURIComponent(ok.headers.get("x-p2-name")!)).toBe("report.txt");
		expect((await get(`session=${session}&id=${sent.id}`, { origin: "https://evil.example" })).status).toBe(403);
		expect((await get(`session=${session}&id=${sent.id}`, { "sec-fetch-site": "cross-site" })).status).toBe(403);
		expect((await get(`session=${session}&id=0a0a0a0a-0000-4000-8000-000000000000`)).status).toBe(404);
		expect((await fetch(`${ts.server.origin}/download?session=${session}&id=${sent.id}`)).status).toBe(401);
	});
});
