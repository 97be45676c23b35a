import { describe, expect, test } from "bun:test";
import { firstKeptSeq, KEEP_NONE } from "../../../src/plugins/chat/compaction.ts";
import { contextRows, toAgentHistory } from "../../../src/plugins/chat/history.ts";
import type { StoredRow } from "../../../src/plugins/chat/view.ts";
import { chatFixture, requestId } from "../../support/chat-fixture.ts";
import { waitForState } from "../../support/p2-server.ts";

const fixture = chatFixture();
/** A server whose compactions keep nothing word for word (pi's `compaction.keepRecentTokens`), so any conversation compacts. */
const keepsNothing = chatFixture({ settings: { compaction: { keepRecentTokens: 0 } } });
const rid = requestId;
const openChat = () => fixture.openChat();

type Body = { messages: { role: string; content: unknown }[] };
const contentText = (content: unknown) => (typeof content === "string" ? content : JSON.stringify(content));

describe("/compact", () => {
	test("the model summarizes the conversation; the next run starts from the summary, not the old messages", async () => {
		const { server, chat } = await keepsNothing.openChat();
		server.fake.enqueue({ text: "Paris is the capital.", usage: { prompt: 1200, completion: 30 } });
		await chat.call("send", { text: "What is the capital of France?", mode: "steer", requestId: rid() });
		await waitForState(chat, (s) => s.live === null && s.entries.some((e) => e.kind === "assistant"));

		server.fake.enqueue({ text: "## Goal\n- The person asked about France's capital (Paris)." });
		const result = await chat.call("compact", { instructions: "Keep the city name." });
		expect(result).toEqual({ tokensBefore: 1230, aborted: false });
		const summaryRequest = server.fake.requests[1] as Body;
		const asked = summaryRequest.messages.map((m) => contentText(m.content)).join("\n");
		expect(asked).toContain("User: What is the capital of France?");
		expect(asked).toContain("Assistant: Paris is the capital.");
		expect(asked).toContain("Also: Keep the city name.");
		const state = await waitForState(chat, (s) => s.entries.some((e) => e.kind === "compaction"));
		expect(state.entries.at(-1)).toMatchObject({
			kind: "compaction",
			tokensBefore: 1230,
			summary: "## Goal\n- The person asked about France's capital (Paris).",
		});
		expect(state.compacting).toBeNull();
		await expect(chat.call("compact", {})).rejects.toMatchObject({
			code: "conflict",
			message: "Compaction failed: Already compacted",
		});

		server.fake.enqueue({ text: "Lyon." });
		await chat.call("send", { text: "And the second city?", mode: "steer", requestId: rid() });
		await waitForState(chat, (s) => s.live === null && s.entries.at(-1)?.kind === "assistant");
		const next = (server.fake.requests[2] as Body).messages
			.filter((m) => m.role === "user")
			.map((m) => contentText(m.content));
		expect(next).toHaveLength(2);
		expect(next[0]).toContain("<summary>");
		expect(next[0]).toContain("France's capital (Paris)");
		expect(next.join("\n")).not.toContain("What is the capital of France?");
		expect(next[1]).toContain("And the second city?");
	});

	test("pi's rule: a conversation within what a compaction keeps word for word is too small to compact", async () => {
		const { server, chat } = await openChat();
		const tooSmall = { code: "conflict", message: "Compaction failed: Nothing to compact (session too small)" };
		await expect(chat.call("compact", {})).rejects.toMatchObject(tooSmall);
		server.fake.enqueue({ text: "hello" });
		await chat.call("send", { text: "hi", mode: "steer", requestId: rid() });
		await waitForState(chat, (s) => s.live === null && s.entries.some((e) => e.kind === "assistant"));
		await expect(chat.call("compact", {})).rejects.toMatchObject(tooSmall);
		expect(server.fake.requests).toHaveLength(1);
		expect(chat.state?.entries.map((e) => e.kind)).toEqual(["user", "assistant"]);

		// Past the 20k tokens pi keeps (four characters a token), there is something older to summarize.
		server.fake.enqueue({ text: "x".repeat(84_000) }, { text: "## Summary\n- a long answer" });
		await chat.call("send", { text: "go long", mode: "steer", requestId: rid() });
		await waitForState(chat, (s) => s.live === null && s.entries.at(-1)?.kind === "assistant");
		expect(await chat.call("compact", {})).toMatchObject({ aborted: false });
	});

	test("Escape cancels a compaction: nothing is written", async () => {
		const { server, chat } = await keepsNothing.openChat();
		server.fake.enqueue({ text: "hello" });
		await chat.call("send", { text: "hi", mode: "steer", requestId: rid() });
		await waitForState(chat, (s) => s.live === null && s.entries.some((e) => e.kind === "assistant"));
		server.fake.enqueue({ hang: true });
		const running = chat.call("compact", {});
		await waitForState(chat, (s) => s.compacting !== null);
		const refused = await chat.call("send", { text: "now?", mode: "steer", requestId: rid() }).catch((e) => e);
		expect(refused).toMatchObject({ code: "conflict" });
		expect(await chat.call("stop", null)).toMatchObject({ stopped: true });
		expect(await running).toMatchObject({ aborted: true });
		const state = await waitForState(chat, (s) => s.compacting === null);
		expect(state.entries.some((e) => e.kind === "compaction")).toBe(false);
	});

	test("a `!` command during a compaction runs at once; its entry is placed when the compaction ends", async () => {
		const { server, chat } = await keepsNothing.openChat();
		server.fake.enqueue({ text: "hello" });
		await chat.call("send", { text: "hi", mode: "steer", requestId: rid() });
		await waitForState(chat, (s) => s.live === null && s.entries.some((e) => e.kind === "assistant"));
		server.fake.enqueue({ hang: true });
		const running = chat.call("compact", {});
		await waitForState(chat, (s) => s.compacting !== null);
		expect(await chat.call("shell", { command: "echo during", includeInContext: true, requestId: rid() })).toEqual({
			exitCode: 0,
			cancelled: false,
		});
		const pending = await waitForState(chat, (s) => s.shell?.ended !== undefined);
		expect(pending.entries.map((e) => e.kind)).toEqual(["user", "assistant"]);
		expect(await chat.call("stop", null)).toMatchObject({ stopped: true });
		expect(await running).toMatchObject({ aborted: true });
		const placed = await waitForState(chat, (s) => s.compacting === null && s.shell === null);
		expect(placed.entries.map((e) => e.kind)).toEqual(["user", "assistant", "shell"]);
	});

	test("a fresh context: the model sees only the handoff note and what follows", async () => {
		const { server, chat } = await openChat();
		server.fake.enqueue({ text: "noted" });
		await chat.call("send", { text: "secret plan A", mode: "steer", requestId: rid() });
		await waitForState(chat, (s) => s.live === null && s.entries.some((e) => e.kind === "assistant"));
		await chat.call("newContext", { handoff: "We chose plan B." });
		await waitForState(chat, (s) => s.entries.at(-1)?.kind === "reset");
		server.fake.enqueue({ text: "ok" });
		await chat.call("send", { text: "go on", mode: "steer", requestId: rid() });
		await waitForState(chat, (s) => s.live === null && s.entries.at(-1)?.kind === "assistant");
		const sent = (server.fake.requests[1] as Body).messages.map((m) => contentText(m.content)).join("\n");
		expect(sent).toContain("We chose plan B.");
		expect(sent).toContain("go on");
		expect(sent).not.toContain("secret plan A");
	});
});

describe("automatic compaction", () => {
	test("an answer that leaves less than 16k tokens of the window free is followed by pi's auto-compaction", async () => {
		const { server, chat } = await openChat();
		const { usageContract } = await import("../../../src/plugins/usage/contract.ts");
		const c = await server.connect();
		const status = await c.open(usageContract, { session: chat.input.session, conversation: "main" });
		const reasons: string[] = [];
		chat.onChange((s) => {
			if (s?.compacting) reasons.push(s.compacting.reason);
		});
		// fake-model's window is 128k: 120k used leaves less than the reserve.
		server.fake.enqueue(
			{ text: "A long answer.", usage: { prompt: 120_000, completion: 500 } },
			{ text: "## Summary\n- a long answer was given" },
		);
		await chat.call("send", { text: "go long", mode: "steer", requestId: rid() });
		const state = await waitForState(chat, (s) => s.compacting === null && s.entries.at(-1)?.kind === "compaction");
		expect(reasons).toContain("threshold");
		expect(state.entries.at(-1)).toMatchObject({ kind: "compaction", tokensBefore: 120_500 });
		// pi's footer shows the context as unknown until the next answer.
		await waitForState(status, (s) => s.contextUnknown && s.contextTokens === null);
		server.fake.enqueue({ text: "short", usage: { prompt: 300, completion: 5 } });
		await chat.call("send", { text: "and now?", mode: "steer", requestId: rid() });
		await waitForState(status, (s) => !s.contextUnknown && s.contextTokens === 305);
		expect(server.fake.requests).toHaveLength(3);
	});

	test("a context overflow is compacted and the run goes on from the summary, once", async () => {
		const { server, chat } = await openChat();
		const reasons: string[] = [];
		chat.onChange((s) => {
			if (s?.compacting) reasons.push(s.compacting.reason);
		});
		server.fake.enqueue(
			{ text: "An earlier answer.", usage: { prompt: 1000, completion: 10 } },
			{
				status: 400,
				error:
					"This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens.",
			},
			{ text: "## Summary\n- an earlier answer" },
			{ text: "The answer after all." },
		);
		await chat.call("send", { text: "first", mode: "steer", requestId: rid() });
		await waitForState(chat, (s) => s.live === null && s.entries.at(-1)?.kind === "assistant");
		await chat.call("send", { text: "the big one", mode: "steer", requestId: rid() });
		const state = await waitForState(chat, (s) =>
			s.entries.some((e) => e.kind === "assistant" && e.parts.some((p) => p.text === "The answer after all.")),
		);
		expect(reasons).toContain("overflow");
		expect(state.entries.some((e) => e.kind === "compaction")).toBe(true);
		// The continuation sent the summary and the person's message once, with no new message of its own.
		const continued = JSON.stringify(server.fake.requests[3]);
		expect(continued).toContain("<summary>");
		expect(continued.split("the big one").length - 1).toBe(1);
		await waitForState(chat, (s) => s.live === null && s.compacting === null);
		expect(server.fake.requests).toHaveLength(4);
	});

	test("an answer well within the window is not followed by a compaction", async () => {
		const { server, chat } = await openChat();
		server.fake.enqueue({ text: "fine", usage: { prompt: 50_000, completion: 500 } });
		await chat.call("send", { text: "hello", mode: "steer", requestId: rid() });
		await waitForState(chat, (s) => s.live === null && s.entries.at(-1)?.kind === "assistant");
		// A compaction would start as the run ends, before the next message: that one's answer shows there was none.
		server.fake.enqueue({ text: "still fine", usage: { prompt: 50_600, completion: 500 } });
		await chat.call("send", { text: "and again", mode: "steer", requestId: rid() });
		const state = await waitForState(chat, (s) => s.live === null && s.entries.at(-1)?.kind === "assistant");
		expect(state.entries.some((e) => e.kind === "compaction")).toBe(false);
		expect(state.compacting).toBeNull();
		expect(server.fake.requests).toHaveLength(2);
	});
});

describe("what a compacted context keeps", () => {
	const row = (seq: number, kind: string, data: unknown): StoredRow => ({ seq, at: seq, kind, data, author: null });
	const user = (seq: number, text: string) => row(seq, "user", { kind: "user", text });
	const answer = (seq: number, text: string) =>
		row(seq, "assistant", {
			kind: "assistant",
			message: { role: "assistant", content: [{ type: "text", text }], stopReason: "stop", usage: null },
		});

	test("the latest user messages within the budget stay; older ones go into the summary", () => {
		const rows = [user(1, "a".repeat(400)), answer(2, "b".repeat(400)), user(3, "c".repeat(40)), answer(4, "d")];
		expect(firstKeptSeq(rows, 50)).toBe(3);
		// Everything fits: all of it is summarized (a manual /compact compacts).
		expect(firstKeptSeq(rows, 100_000)).toBe(KEEP_NONE);
		const compacted = [
			...rows,
			row(5, "compaction", { kind: "compaction", summary: "S", tokensBefore: 10, firstKeptSeq: 3 }),
			user(6, "later"),
		];
		const { lead, rows: kept } = contextRows(compacted);
		expect(lead?.text).toContain("<summary>\nS\n</summary>");
		expect(kept.map((r) => r.seq)).toEqual([3, 4, 6]);
		expect(toAgentHistory(compacted).map((m) => m.role)).toEqual(["user", "user", "assistant", "user"]);
	});
});
