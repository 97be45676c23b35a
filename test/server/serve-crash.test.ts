import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chatContract } from "../../src/plugins/chat/contract.ts";
import { sessionsContract } from "../../src/plugins/sessions/contract.ts";
import { DEVICE_TOKEN_HEADER, SERVER_INFO_FILE } from "../../src/protocol/server-info.ts";
import { fakeModelDirs } from "../support/fake-openai.ts";
import { connectClient, waitForState } from "../support/p2-server.ts";
import { asServer, startServe } from "../support/serve-process.ts";

const cleanups: (() => unknown)[] = [];

afterEach(async () => {
	for (const f of cleanups.splice(0).reverse()) await f();
});

const serve = (dataDir: string) => startServe(dataDir, (proc) => cleanups.push(() => proc.kill(9)));

describe("p2 serve", () => {
	test("writes its device token 0600 beside its port, and prints an owner link", async () => {
		const dataDir = mkdtempSync(join(tmpdir(), "p2-serve-"));
		cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
		const { info, link } = await serve(dataDir);
		expect(statSync(join(dataDir, SERVER_INFO_FILE)).mode & 0o777).toBe(0o600);
		expect(statSync(dataDir).mode & 0o777).toBe(0o700);
		expect(link).toStartWith(`${info.origin}/owner#`);
	}, 30_000);

	test("a run interrupted by kill -9 is marked interrupted after restart, and the session goes on", async () => {
		const { dataDir, cwd, fake } = await fakeModelDirs(cleanups, "p2-serve-");

		const first = await serve(dataDir);
		let c = await connectClient(asServer(first.info), { [DEVICE_TOKEN_HEADER]: first.info.deviceToken });
		const sessions = await c.open(sessionsContract, {});
		const { id } = await sessions.call("create", { cwd });
		let chat = await c.open(chatContract, { session: id, conversation: "main" });
		fake.enqueue({ toolCalls: [{ name: "bash", args: { command: "sleep 8" } }] });
		await chat.call("send", { text: "long job", mode: "steer", requestId: "crash-run-1" });
		await waitForState(chat, (s) => (s.live?.tools.length ?? 0) > 0);
		c.close();
		first.proc.kill(9);
		await first.proc.exited;

		const second = await serve(dataDir);
		c = await connectClient(asServer(second.info), { [DEVICE_TOKEN_HEADER]: second.info.deviceToken });
		chat = await c.open(chatContract, { session: id, conversation: "main" });
		const kinds = chat.state?.entries.map((e) => e.kind);
		expect(kinds).toEqual(["user", "assistant", "interrupted"]);
		expect(chat.state?.live).toBeNull();
		// The old device token no longer works; the new one does.
		expect(second.info.deviceToken).not.toBe(first.info.deviceToken);

		fake.enqueue({ text: "Picking up again." });
		await chat.call("send", { text: "continue", mode: "steer", requestId: "crash-run-2" });
		const state = await waitForState(chat, (s) => s.live === null && s.entries.length >= 5);
		expect(state.entries.map((e) => e.kind)).toEqual(["user", "assistant", "interrupted", "user", "assistant"]);
		// The unfinished tool call reached the model with an "interrupted" result, so the provider accepts it.
		const request = JSON.stringify(fake.requests.at(-1));
		expect(request).toContain("interrupted");
		c.close();
		// Two servers from source, and this process building its schemas on first use: seconds on a busy machine.
	}, 30_000);
});
