import { describe, expect, test } from "bun:test";
import type { ChatEntry, ChatState } from "../../../src/plugins/chat/contract.ts";
import {
	committedItems,
	displayItems,
	liveAnswerItem,
	onlyAnswerGrew,
	sameItem,
	shownWithKey,
	type ViewOptions,
} from "../../../src/plugins/chat/tui/display-items.ts";
import type { Author } from "../../../src/protocol/common.ts";
import { applyPatch } from "../../../src/protocol/patch.ts";

const author: Author = { id: "me", name: "Me", role: "deviceOwner" };
const view: ViewOptions = { viewerId: "me", toolsExpanded: false, hideThinking: false, home: undefined, now: 10_000 };
const state = (over: Partial<ChatState>): ChatState => ({
	entries: [],
	older: false,
	live: null,
	queue: [],
	returned: [],
	model: null,
	thinkingLevel: "medium",
	compacting: null,
	shell: null,
	...over,
});
const user = (seq: number, text: string, who: Author = author): ChatEntry => ({
	seq,
	at: seq,
	kind: "user",
	text,
	author: who,
	images: 0,
});

describe("display items", () => {
	test("a `!` command that ended while the agent works shows, pending, as ended with its exit code", () => {
		const shell = { id: "s1", command: "make", author, includeInContext: true, output: "built", startedAt: 1 };
		const running = displayItems(state({ shell }), view).at(-1)!;
		expect(running.kind === "shell" && running.data).toMatchObject({ running: true, exitCode: null });
		const ended = displayItems(state({ shell: { ...shell, ended: { exitCode: 2, cancelled: false } } }), view).at(-1)!;
		expect(ended.kind === "shell" && ended.data).toMatchObject({
			command: "make",
			output: "built",
			running: false,
			exitCode: 2,
			cancelled: false,
		});
	});

	test("entries keep their keys; a live tool card and its committed entry share one", () => {
		const live = state({
			entries: [user(1, "hi")],
			live: {
				runId: "r1",
				startedAt: 0,
				message: { parts: [{ type: "text", text: "Let me look" }], toolCalls: ["call-1"] },
				tools: [{ id: "call-1", name: "bash", args: { command: "ls" }, output: "a\n", startedAt: 7_000 }],
				retry: null,
			},
		});
		const before = displayItems(live, view);
		expect(before.map((i) => i.key)).toEqual(["e:1", "live:r1", "tool:call-1"]);
		const tool = before[2]!;
		expect(tool.kind === "tool" && tool.data.state).toBe("pending");
		expect(tool.kind === "tool" && tool.data.elapsedMs).toBe(3_000);

		const done = state({
			entries: [
				user(1, "hi"),
				{
					seq: 2,
					at: 2,
					kind: "assistant",
					parts: [{ type: "text", text: "Let me look" }],
					toolCalls: ["call-1"],
					stopReason: "toolUse",
					provider: "fake",
					model: "m",
					usage: null,
				},
				{
					seq: 3,
					at: 3,
					kind: "tool",
					callId: "call-1",
					name: "bash",
					args: { command: "ls" },
					result: { text: "a\n", isError: false, details: { exitCode: 0 } },
					durationMs: 40,
				},
			],
		});
		const after = displayItems(done, view);
		expect(after.map((i) => i.key)).toEqual(["e:1", "e:2", "tool:call-1"]);
		expect(after.every((i) => i.committed)).toBe(true);
		const card = after[2]!;
		expect(card.kind === "tool" && card.data.state).toBe("success");
		expect(sameItem(before[0]!, after[0]!)).toBe(true);
		expect(sameItem(tool, card)).toBe(false);
	});

	test("a tool call announced but not yet running is a pending card; errors and interruptions are status lines", () => {
		const items = displayItems(
			state({
				entries: [
					{ seq: 1, at: 1, kind: "error", message: "No API key" },
					{ seq: 2, at: 2, kind: "interrupted", message: "The server restarted during the answer." },
				],
				live: { runId: "r", startedAt: 0, message: { parts: [], toolCalls: ["c9"] }, tools: [], retry: null },
			}),
			view,
		);
		expect(items.map((i) => [i.key, i.kind])).toEqual([
			["e:1", "status"],
			["e:2", "status"],
			["live:r", "assistant"],
			["tool:c9", "tool"],
		]);
		expect(items[0]!.kind === "status" && items[0]!.data).toEqual({ text: "Error: No API key", tone: "error" });
	});

	test("user messages carry their author only when it is someone else", () => {
		const other = { id: "guest-1", name: "Ana\u001b[2J", role: "full" as const };
		const owner = { id: "owner:1", name: "owner", role: "owner" as const };
		const items = displayItems(
			state({ entries: [user(1, "mine"), user(2, "theirs", other), user(3, "boss", owner)] }),
			view,
		);
		// A guest's name is their own claim, shown as such and without control characters.
		expect(items.map((i) => i.kind === "user" && i.data)).toEqual([
			{ text: "mine" },
			{ text: "theirs", author: "Ana [2J (unverified)" },
			{ text: "boss", author: "owner" },
		]);
	});

	test("after a compaction, what it summarized is not shown; what it kept and what follows are (pi)", () => {
		const compaction = (seq: number, firstKeptSeq: number): ChatEntry => ({
			seq,
			at: seq,
			kind: "compaction",
			summary: "S",
			tokensBefore: 10,
			firstKeptSeq,
		});
		const entries = [user(1, "old"), user(2, "kept"), compaction(3, 2), user(4, "after")];
		const shown = displayItems(state({ entries }), view).map((i) => (i.kind === "user" ? i.data.text : i.kind));
		expect(shown).toEqual(["kept", "compaction", "after"]);
		const all = displayItems(state({ entries: [user(1, "old"), compaction(2, Number.MAX_SAFE_INTEGER)] }), view);
		expect(all.map((i) => i.kind)).toEqual(["compaction"]);
	});

	test("view options reach every item: expanded tools, hidden thinking", () => {
		const items = displayItems(
			state({
				entries: [
					{
						seq: 1,
						at: 1,
						kind: "assistant",
						parts: [{ type: "thinking", text: "hm", redacted: false }],
						toolCalls: [],
						stopReason: "stop",
						provider: "p",
						model: "m",
						usage: null,
					},
				],
			}),
			{ ...view, hideThinking: true },
		);
		expect(items[0]!.kind === "assistant" && items[0]!.data.hideThinking).toBe(true);
	});
});

describe("comparing display data without serialising it", () => {
	test("equal when the data is, whatever the key order; different when any leaf or shape is", async () => {
		const { sameData } = await import("../../../src/ui/same-data.ts");
		const text = "x".repeat(10_000);
		expect(sameData({ a: 1, b: [text, { c: null }] }, { b: [`${text}`, { c: null }], a: 1 })).toBe(true);
		expect(sameData({ a: text }, { a: `${text}y` })).toBe(false);
		expect(sameData({ a: [1, 2] }, { a: [1, 2, 3] })).toBe(false);
		expect(sameData({ a: [1] }, { a: { 0: 1 } })).toBe(false);
		expect(sameData({ a: 1 }, { a: 1, b: 2 })).toBe(false);
		expect(sameData({ a: null }, { a: {} })).toBe(false);
		expect(sameData("1", 1)).toBe(false);
	});
});

describe("committed items and what runs, made apart", () => {
	test("items made apart from what runs are the display items; committed tool calls keep a live call from showing twice", () => {
		const entries = [
			{
				seq: 1,
				at: 1,
				kind: "tool",
				callId: "t1",
				name: "read",
				args: {},
				result: { content: [], details: null, isError: false },
				durationMs: 3,
			},
		] as unknown as ChatEntry[];
		const live = {
			runId: "r1",
			message: { parts: [{ type: "text", text: "Hi" }], toolCalls: ["t1", "t2"] },
			tools: [],
			retry: null,
		} as unknown as ChatState["live"];
		const committed = committedItems(entries, view);
		const items = displayItems({ entries, live, shell: null }, view, committed);
		expect(items).toEqual(displayItems({ entries, live, shell: null }, view));
		expect(items.map((i) => i.key)).toEqual(["tool:t1", "live:r1", "tool:t2"]);
		expect(committed.shownWith).toBe(shownWithKey({ ...view, now: 9999 }));
		for (const other of [
			{ toolsExpanded: true },
			{ hideThinking: true },
			{ viewerId: "someone else" },
			{ home: "/home/x" },
			{ expandKey: "ctrl+x" },
			{ interruptKey: "ctrl+y" },
		]) {
			expect(committed.shownWith).not.toBe(shownWithKey({ ...view, ...other }));
		}
	});
});

describe("a streamed frame that only grows the answer", () => {
	type Parts = NonNullable<NonNullable<ChatState["live"]>["message"]>["parts"];
	const live = (parts: Parts) =>
		state({
			live: {
				runId: "r1",
				startedAt: 0,
				message: { parts, toolCalls: [] },
				tools: [],
				retry: null,
			},
		});
	const grow = (s: ChatState, text: string): ChatState =>
		applyPatch(s, [{ op: "append", path: ["live", "message", "parts", 0, "text"], text }]);

	test("is told apart from every other change, as the patches make them", () => {
		const before = live([{ type: "text", text: "Hello" }]);
		expect(onlyAnswerGrew(before, grow(before, " world"))).toBe(true);
		const two = live([
			{ type: "thinking", text: "hm", redacted: false },
			{ type: "text", text: "Hi" },
		]);
		const both = applyPatch(two, [
			{ op: "append", path: ["live", "message", "parts", 0, "text"], text: "m" },
			{ op: "append", path: ["live", "message", "parts", 1, "text"], text: "!" },
		]);
		expect(onlyAnswerGrew(two, both)).toBe(true);
		const changes: [string, ChatState][] = [
			["a queued message", applyPatch(grow(before, "!"), [{ op: "push", path: ["queue"], items: [{ id: "q" }] }])],
			["a tool starts", applyPatch(before, [{ op: "push", path: ["live", "tools"], items: [{ id: "t" }] }])],
			["a tool call", applyPatch(before, [{ op: "push", path: ["live", "message", "toolCalls"], items: ["c"] }])],
			[
				"a new part",
				applyPatch(before, [{ op: "push", path: ["live", "message", "parts"], items: [{ type: "text", text: "" }] }]),
			],
			["a retry", applyPatch(before, [{ op: "set", path: ["live", "retry"], value: { attempt: 1 } }])],
			["the model", applyPatch(before, [{ op: "set", path: ["model"], value: { provider: "p", id: "m" } }])],
			[
				"text replaced",
				applyPatch(before, [{ op: "set", path: ["live", "message", "parts", 0, "text"], value: "Bye" }]),
			],
			[
				"a part's type",
				applyPatch(before, [{ op: "set", path: ["live", "message", "parts", 0, "type"], value: "thinking" }]),
			],
			["the answer ends", applyPatch(before, [{ op: "set", path: ["live", "message"], value: null }])],
			["the run ends", applyPatch(before, [{ op: "set", path: ["live"], value: null }])],
		];
		for (const [what, next] of changes) expect([what, onlyAnswerGrew(before, next)]).toEqual([what, false]);
		// Nothing changed is no grown answer either way it is asked.
		expect(onlyAnswerGrew(state({}), state({}))).toBe(false);
	});

	test("its item is the one the whole list holds", () => {
		const s = grow(live([{ type: "text", text: "Hello" }]), " there");
		const item = displayItems(s, view).find((i) => i.key.startsWith("live:"));
		expect(liveAnswerItem(s.live!, s.live!.message!, view)).toEqual(item!);
	});
});
