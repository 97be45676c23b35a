import { describe, expect, test } from "bun:test";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type ChatEntry, chatContract } from "../../../src/plugins/chat/contract.ts";
import { sessionsContract } from "../../../src/plugins/sessions/contract.ts";
import { usageContract } from "../../../src/plugins/usage/contract.ts";
import type { ObjectRef } from "../../../src/protocol/object-client.ts";
import { chatFixture, requestId } from "../../support/chat-fixture.ts";
import { type TestClient, type TestServer, waitForState } from "../../support/p2-server.ts";

type Chat = ObjectRef<typeof chatContract>;

const fixture = chatFixture();
/** Retries wait a minute: a test can stop one during its countdown. */
const slowRetry = chatFixture({ retry: { enabled: true, maxRetries: 3, baseDelayMs: 60_000 } });
let ts: TestServer | undefined;
const rid = requestId;
const newSession = (c: TestClient, cwd?: string) => fixture.session(c, cwd);

async function openChat(c: TestClient, session: string): Promise<Chat> {
	return c.open(chatContract, { session, conversation: "main" });
}

const idle = (chat: Chat) => waitForState(chat, (s) => s.live === null);
const texts = (entries: readonly ChatEntry[]) =>
	entries.map((e) => {
		if (e.kind === "user") return `user:${e.text}`;
		if (e.kind === "assistant")
			return `assistant:${e.parts.map((p) => (p.type === "text" ? p.text : `[${p.text}]`)).join("")}`;
		if (e.kind === "tool") return `tool:${e.name}`;
		if (e.kind === "compaction") return `compaction:${e.summary}`;
		if (e.kind === "reset") return `reset:${e.handoff ?? ""}`;
		if (e.kind === "shell") return `shell:${e.command}`;
		if (e.kind === "plugin") return `plugin:${e.type}`;
		return `${e.kind}:${e.message}`;
	});

interface PatchFrame {
	t: "patch";
	h: number;
	ops: { op: string; path: (string | number)[]; text?: string }[];
}
function patches(c: TestClient, h: number): PatchFrame[] {
	return c.frames.map((f) => JSON.parse(f)).filter((f): f is PatchFrame => f.t === "patch" && f.h === h);
}

describe("a real agent session over a WebSocket", () => {
	test("an answer streams as appends, thinking included, and is committed", async () => {
		ts = await fixture.start();
		const c = await ts.connect();
		const { id } = await newSession(c);
		const chat = await openChat(c, id);
		ts.fake.enqueue({ thinking: "Let me think about it.", text: "Hello there, this is the answer.", chunks: 5 });
		expect(await chat.call("send", { text: "hi", mode: "steer", requestId: rid() })).toEqual({ status: "started" });
		const state = await waitForState(chat, (s) => s.live === null && s.entries.some((e) => e.kind === "assistant"));
		expect(texts(state.entries)).toEqual([
			"user:hi",
			"assistant:[Let me think about it.]Hello there, this is the answer.",
		]);
		const user = state.entries[0];
		expect(user?.kind === "user" && user.author).toEqual({ id: "device", name: "owner", role: "deviceOwner" });
		const appends = patches(c, chat.h).flatMap((p) => p.ops.filter((o) => o.op === "append"));
		// Thinking and text grow in two places; the tokens of one frame travel as one append.
		expect(appends.length).toBeGreaterThanOrEqual(2);
		expect(appends.map((a) => a.text).join("")).toBe("Let me think about it.Hello there, this is the answer.");
		// The growing text is never resent whole while it streams.
		const sets = patches(c, chat.h).flatMap((p) => p.ops.filter((o) => o.op === "set"));
		expect(JSON.stringify(sets)).not.toContain("Hello there, this is the answer.");
		const status = await c.open(usageContract, { session: id, conversation: "main" });
		await waitForState(status, (s) => s.conversation.output > 0);
		expect(status.state?.contextTokens).toBeGreaterThan(0);
	});

	test("bash runs in the session's directory and streams; edit changes the file and carries a diff", async () => {
		ts = await fixture.start();
		const c = await ts.connect();
		const { id, cwd } = await newSession(c);
		writeFileSync(join(cwd, "notes.txt"), "alpha\nbeta\ngamma\n");
		const chat = await openChat(c, id);
		ts.fake.enqueue(
			{ toolCalls: [{ name: "bash", args: { command: "echo first; sleep 0.3; pwd" } }] },
			{ toolCalls: [{ name: "edit", args: { path: "notes.txt", edits: [{ oldText: "beta", newText: "BETA" }] } }] },
			{ text: "All done." },
		);
		let sawLiveOutput = false;
		const off = chat.onChange((s) => {
			if (s.live?.tools.some((t) => t.name === "bash" && t.output.includes("first"))) sawLiveOutput = true;
		});
		await chat.call("send", { text: "run it", mode: "steer", requestId: rid() });
		const state = await waitForState(chat, (s) => s.live === null && texts(s.entries).includes("assistant:All done."));
		off();
		expect(sawLiveOutput).toBe(true);
		expect(texts(state.entries)).toEqual([
			"user:run it",
			"assistant:",
			"tool:bash",
			"assistant:",
			"tool:edit",
			"assistant:All done.",
		]);
		const bash = state.entries.find((e) => e.kind === "tool" && e.name === "bash");
		expect(bash?.kind === "tool" && bash.result.text).toContain(cwd);
		expect(bash?.kind === "tool" && bash.result.isError).toBe(false);
		const edit = state.entries.find((e) => e.kind === "tool" && e.name === "edit");
		expect(edit?.kind === "tool" && String(edit.result.details?.diff)).toContain("BETA");
		expect(readFileSync(join(cwd, "notes.txt"), "utf8")).toBe("alpha\nBETA\ngamma\n");
	});

	test("a transient provider error is retried with a countdown; the model sees only the answer", async () => {
		ts = await fixture.start();
		const c = await ts.connect();
		const { id } = await newSession(c);
		const chat = await openChat(c, id);
		ts.fake.enqueue({ status: 500, error: "upstream overloaded" }, { text: "Recovered." });
		let retry: unknown = null;
		const off = chat.onChange((s) => {
			if (s.live?.retry) retry = s.live.retry;
		});
		await chat.call("send", { text: "try", mode: "steer", requestId: rid() });
		const state = await waitForState(chat, (s) => s.live === null && s.entries.length >= 2);
		off();
		expect(retry).toMatchObject({ attempt: 1, maxAttempts: 3 });
		// As in pi, the attempt's error stays in the transcript; the answer follows it.
		expect(texts(state.entries)).toEqual(["user:try", "assistant:", "assistant:Recovered."]);
		expect(state.entries[1]).toMatchObject({
			stopReason: "error",
			error: expect.stringContaining("upstream overloaded"),
		});
		expect(ts.fake.requests.length).toBe(2);
		// The failed attempt never reaches the model, now or after the agent is rebuilt from the entries.
		await ts.restart();
		const again = await openChat(await ts.connect(), id);
		ts.fake.enqueue({ text: "Next." });
		await again.call("send", { text: "more", mode: "steer", requestId: rid() });
		await waitForState(again, (s) => s.live === null && s.entries.length >= 5);
		const sent = JSON.stringify(ts.fake.requests[2]);
		expect(sent).toContain("Recovered.");
		expect(sent).not.toContain("upstream overloaded");
	});

	test('retries that never get an answer end with pi\'s "Retry failed after N attempts" line', async () => {
		ts = await fixture.start();
		const c = await ts.connect();
		const { id } = await newSession(c);
		const chat = await openChat(c, id);
		const boom = (n: number) => ({ status: 500, error: `boom ${n}` });
		ts.fake.enqueue(boom(1), boom(2), boom(3), boom(4));
		await chat.call("send", { text: "try", mode: "steer", requestId: rid() });
		const state = await waitForState(chat, (s) => s.live === null && s.entries.at(-1)?.kind === "error");
		const errors = state.entries.flatMap((e) => (e.kind === "assistant" ? [e.error ?? ""] : []));
		expect(errors).toHaveLength(4);
		for (const [i, error] of errors.entries()) expect(error).toContain(`boom ${i + 1}`);
		const last = state.entries.at(-1);
		expect(last?.kind === "error" && last.message).toStartWith("Retry failed after 3 attempts: 500");
		expect(last?.kind === "error" && last.message).toContain("boom 4");
	});

	test("Escape during a retry's countdown ends it with pi's words for a cancelled retry", async () => {
		ts = await slowRetry.start();
		const c = await ts.connect();
		const { id } = await slowRetry.session(c);
		const chat = await openChat(c, id);
		ts.fake.enqueue({ status: 500, error: "boom" });
		await chat.call("send", { text: "again", mode: "steer", requestId: rid() });
		await waitForState(chat, (s) => s.live?.retry != null);
		await chat.call("stop", null);
		const stopped = await waitForState(chat, (s) => s.live === null && s.entries.at(-1)?.kind === "error");
		expect(texts(stopped.entries).at(-1)).toBe("error:Retry failed after 1 attempts: Retry cancelled");
	});

	test("steering while busy lands at the next tool boundary; follow-up waits for the end", async () => {
		ts = await fixture.start();
		const c = await ts.connect();
		const { id } = await newSession(c);
		const chat = await openChat(c, id);
		ts.fake.enqueue(
			{ toolCalls: [{ name: "bash", args: { command: "sleep 0.5; echo slow" } }] },
			{ text: "Steered." },
			{ text: "Followed up." },
		);
		await chat.call("send", { text: "start", mode: "steer", requestId: rid() });
		await waitForState(chat, (s) => (s.live?.tools.length ?? 0) > 0);
		expect(await chat.call("send", { text: "later", mode: "followUp", requestId: rid() })).toEqual({
			status: "queued",
		});
		expect(await chat.call("send", { text: "change course", mode: "steer", requestId: rid() })).toEqual({
			status: "queued",
		});
		expect(chat.state?.queue.map((q) => [q.mode, q.text, q.author.id])).toEqual([
			["followUp", "later", "device"],
			["steer", "change course", "device"],
		]);
		const state = await waitForState(
			chat,
			(s) => s.live === null && texts(s.entries).includes("assistant:Followed up."),
		);
		expect(texts(state.entries)).toEqual([
			"user:start",
			"assistant:",
			"tool:bash",
			"user:change course",
			"assistant:Steered.",
			"user:later",
			"assistant:Followed up.",
		]);
		expect(state.queue).toEqual([]);
		// The steering message reached the model in the request after the tool result.
		expect(JSON.stringify(ts.fake.requests[1])).toContain("change course");
		expect(JSON.stringify(ts.fake.requests[1])).not.toContain("later");
	});

	test("stop aborts the run and gives the caller back their queued text", async () => {
		ts = await fixture.start();
		const c = await ts.connect();
		const { id } = await newSession(c);
		const chat = await openChat(c, id);
		ts.fake.enqueue({ hang: true });
		await chat.call("send", { text: "hang", mode: "steer", requestId: rid() });
		await ts.fake.waitForRequest(1);
		await chat.call("send", { text: "queued draft", mode: "followUp", requestId: rid() });
		expect(await chat.call("stop", null)).toEqual({ stopped: true, texts: ["queued draft"] });
		const state = await idle(chat);
		expect(state.queue).toEqual([]);
		const last = state.entries[state.entries.length - 1];
		expect(last?.kind === "assistant" && last.stopReason).toBe("aborted");
		expect(await chat.call("stop", null)).toEqual({ stopped: false, texts: [] });
		// A new message starts a fresh run after the abort.
		ts.fake.enqueue({ text: "Fresh." });
		await chat.call("send", { text: "again", mode: "steer", requestId: rid() });
		await waitForState(chat, (s) => s.live === null && texts(s.entries).includes("assistant:Fresh."));
	});

	test("a retried requestId runs once", async () => {
		ts = await fixture.start();
		const c = await ts.connect();
		const { id } = await newSession(c);
		const chat = await openChat(c, id);
		const requestId = rid();
		expect(await chat.call("send", { text: "once", mode: "steer", requestId })).toEqual({ status: "started" });
		expect(await chat.call("send", { text: "once", mode: "steer", requestId })).toEqual({ status: "duplicate" });
		const state = await waitForState(chat, (s) => s.live === null && s.entries.length >= 2);
		expect(texts(state.entries)).toEqual(["user:once", "assistant:ok"]);
		expect(await chat.call("send", { text: "once", mode: "steer", requestId })).toEqual({ status: "duplicate" });
		expect(ts.fake.requests.length).toBe(1);
	});

	test("two clients see the same stream and the same queue", async () => {
		ts = await fixture.start();
		const a = await ts.connect();
		const b = await ts.connect();
		const { id } = await newSession(a);
		const chatA = await openChat(a, id);
		const chatB = await openChat(b, id);
		ts.fake.enqueue(
			{ toolCalls: [{ name: "bash", args: { command: "sleep 0.3" } }] },
			{ text: "Shared answer streaming to both.", chunks: 6 },
		);
		await chatA.call("send", { text: "go", mode: "steer", requestId: rid() });
		await waitForState(chatB, (s) => (s.live?.tools.length ?? 0) > 0);
		await chatB.call("send", { text: "from b", mode: "followUp", requestId: rid() });
		await waitForState(chatA, (s) => s.queue.some((q) => q.text === "from b"));
		const [sa, sb] = await Promise.all([
			waitForState(chatA, (s) => s.live === null && texts(s.entries).includes("user:from b") && s.entries.length >= 6),
			waitForState(chatB, (s) => s.live === null && texts(s.entries).includes("user:from b") && s.entries.length >= 6),
		]);
		expect(sb).toEqual(sa);
		const streamed = (c: TestClient, h: number) =>
			patches(c, h)
				.flatMap((p) => p.ops.filter((o) => o.op === "append"))
				.map((o) => o.text)
				.join("");
		expect(streamed(b, chatB.h)).toBe(streamed(a, chatA.h));
		expect(streamed(a, chatA.h)).toContain("Shared answer streaming to both.");
	});

	test("everything survives a server restart", async () => {
		ts = await fixture.start();
		let c = await ts.connect();
		const { id } = await newSession(c);
		let chat = await openChat(c, id);
		ts.fake.enqueue({ text: "Remember me." });
		await chat.call("send", { text: "first", mode: "steer", requestId: rid() });
		const before = await waitForState(chat, (s) => s.live === null && s.entries.length >= 2);
		await ts.restart();
		c = await ts.connect();
		const sessions = await c.open(sessionsContract, {});
		expect(sessions.state?.sessions.map((s) => [s.id, s.title])).toEqual([[id, "first"]]);
		chat = await openChat(c, id);
		expect(chat.state?.entries).toEqual(before.entries);
		// The conversation goes on with its history: the model is sent the earlier turn.
		ts.fake.enqueue({ text: "Still here." });
		await chat.call("send", { text: "second", mode: "steer", requestId: rid() });
		await waitForState(chat, (s) => s.live === null && s.entries.length >= 4);
		const lastRequest = JSON.stringify(ts.fake.requests[ts.fake.requests.length - 1]);
		expect(lastRequest).toContain("Remember me.");
		expect(lastRequest).toContain("second");
	});

	test("older entries come in pages; the first window is bounded", async () => {
		ts = await fixture.start();
		const c = await ts.connect();
		const { id } = await newSession(c);
		const store = ts.server.ctx.stores.get(id);
		store.appendMany(
			"main",
			Array.from({ length: 450 }, (_, i) => ({ kind: "error", data: { kind: "error", message: `entry ${i}` } })),
		);
		const chat = await openChat(c, id);
		const state = chat.state!;
		expect(state.older).toBe(true);
		expect(state.entries.length).toBeLessThanOrEqual(200);
		expect(texts(state.entries).at(-1)).toBe("error:entry 449");
		const first = state.entries[0]!;
		const page = await chat.call("page", { beforeSeq: first.seq, limit: 100 });
		expect(page.entries.length).toBe(100);
		expect(page.more).toBe(true);
		expect(page.entries.at(-1)?.seq).toBeLessThan(first.seq);
	});

	test("without a usable model the server says so and stores nothing", async () => {
		ts = await fixture.start();
		rmSync(join(ts.dataDir, "models.json"));
		await ts.restart();
		const c = await ts.connect();
		const { id } = await newSession(c);
		const chat = await openChat(c, id);
		expect(chat.state?.model).toBeNull();
		const error = await chat.call("send", { text: "hello?", mode: "steer", requestId: rid() }).catch((e) => e);
		expect(error.code).toBe("unavailable");
		expect(error.message).toStartWith("No models available. Use /login");
		expect(chat.state?.entries).toEqual([]);
		expect(ts.fake.requests.length).toBe(0);
	});
});
