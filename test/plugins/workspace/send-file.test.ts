import { describe, expect, test } from "bun:test";
import { mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEVICE_TOKEN_HEADER } from "../../../src/protocol/server-info.ts";
import { chatFixture, requestId } from "../../support/chat-fixture.ts";
import { waitForState } from "../../support/p2-server.ts";

const fixture = chatFixture();

describe("the send_file tool", () => {
	test("offers a file of the session's directory: listed by /download's method and served; nothing outside is sent", async () => {
		const { server, chat, session, cwd } = await fixture.openChat();
		const outside = realpathSync(mkdtempSync(join(tmpdir(), "p2-send-out-")));
		try {
			writeFileSync(join(cwd, "report.txt"), "the report\n");
			writeFileSync(join(outside, "secret.txt"), "secret\n");
			symlinkSync(join(outside, "secret.txt"), join(cwd, "link.txt"));
			server.fake.enqueue(
				{ toolCalls: [{ name: "send_file", args: { path: "report.txt" } }] },
				{ toolCalls: [{ name: "send_file", args: { path: "../secret.txt" } }] },
				{ toolCalls: [{ name: "send_file", args: { path: "link.txt" } }] },
				{ toolCalls: [{ name: "send_file", args: { path: join(outside, "secret.txt") } }] },
				{ text: "Sent." },
			);
			await chat.call("send", { text: "send me the report", mode: "steer", requestId: requestId() });
			const state = await waitForState(
				chat,
				(s) => s.live === null && s.entries.filter((e) => e.kind === "tool").length === 4,
			);
			const results = state.entries.flatMap((e) => (e.kind === "tool" ? [e.result.text] : []));
			expect(results[0]).toBe("Sent report.txt (11 bytes) to the people in the session.");
			for (const refused of results.slice(1)) expect(refused).toContain("is not a file in the working directory");
			const { files } = await chat.call("files", null);
			expect(files).toHaveLength(1);
			expect(files[0]).toMatchObject({ name: "report.txt", size: 11, agent: true });
			const res = await fetch(`${server.server.origin}/download?session=${session}&id=${files[0]!.id}`, {
				headers: { [DEVICE_TOKEN_HEADER]: server.server.deviceToken },
			});
			expect(await res.text()).toBe("the report\n");
			// The worker previews through the chat object (it has no cookie): text, or null for a binary file.
			expect(await chat.call("preview", { id: files[0]!.id })).toEqual({ text: "the report\n", truncated: false });
			writeFileSync(join(cwd, "blob.bin"), Buffer.from([1, 0, 2, 3]));
			writeFileSync(join(cwd, "big.txt"), "x".repeat(300 * 1024));
			server.fake.enqueue(
				{ toolCalls: [{ name: "send_file", args: { path: "blob.bin" } }] },
				{ toolCalls: [{ name: "send_file", args: { path: "big.txt" } }] },
				{ text: "Sent." },
			);
			await chat.call("send", { text: "and the others", mode: "steer", requestId: requestId() });
			await waitForState(chat, (s) => s.live === null && s.entries.filter((e) => e.kind === "tool").length === 6);
			const all = (await chat.call("files", null)).files;
			const blob = all.find((f) => f.name === "blob.bin")!;
			const big = all.find((f) => f.name === "big.txt")!;
			expect(await chat.call("preview", { id: blob.id })).toEqual({ text: null, truncated: false });
			const cut = await chat.call("preview", { id: big.id });
			expect(cut.truncated).toBe(true);
			expect(cut.text?.length).toBe(256 * 1024);
			const refused = await chat.call("preview", { id: "0a0a0a0a-0000-4000-8000-000000000000" }).catch((e) => e);
			expect(refused).toMatchObject({ code: "not_found" });
		} finally {
			rmSync(outside, { recursive: true, force: true });
		}
	});
});
