import { describe, expect, test } from "bun:test";
import { taskResult } from "../../../src/plugins/chat/tasks.ts";
import { type ConversationItem, progressText, readProgress } from "../../../src/plugins/subagents/contract.ts";
import { threaded } from "../../../src/plugins/subagents/tui/agents-selector.ts";
import { subagentCard } from "../../../src/plugins/subagents/tui/card.ts";
import type { StoredEntry } from "../../../src/server/store/session-store.ts";
import { Footer, type FooterData } from "../../../src/ui/footer.ts";
import { BUILTIN_THEMES } from "../../../src/ui/theme/builtin.ts";
import { Theme } from "../../../src/ui/theme/theme.ts";
import { ThemeRef } from "../../../src/ui/theme/theme-ref.ts";
import type { ToolCardData } from "../../../src/ui/tools/tool-card.ts";

const theme = Theme.fromJson(BUILTIN_THEMES.dark, "truecolor");
const plain = (text: string) => text.replace(/\x1b\[[0-9;]*m/g, "");

function item(id: string, parent: string | null, at: number, extra: Partial<ConversationItem> = {}): ConversationItem {
	return {
		id,
		parent,
		title: id,
		model: null,
		status: parent ? "done" : null,
		archived: false,
		createdAt: at,
		endedAt: null,
		...extra,
	};
}

function card(data: Partial<ToolCardData>): { title: string; body: string[] } {
	const view = subagentCard(
		{
			name: "subagent",
			args: { task: "Count the files" },
			state: "pending",
			output: "",
			details: null,
			elapsedMs: 1500,
			expanded: false,
			home: undefined,
			...data,
		},
		theme,
	);
	return { title: plain(view.title), body: view.body.map(plain) };
}

describe("the subagent card", () => {
	test("while it runs: the task, the model, running, its latest activity, and its conversation", () => {
		const shown = card({ output: progressText("agent-1234abcd", "fake/fake-model", "→ bash ls -la") });
		expect(shown.title).toBe("subagent Count the files");
		expect(shown.body).toEqual([
			"",
			"fake/fake-model · running · Elapsed 1.5s",
			"→ bash ls -la",
			"",
			"Conversation agent-1234abcd · /agents opens it",
		]);
	});

	test("when done: its answer without the trace (the trace when expanded)", () => {
		const details = {
			conversation: "agent-1234abcd",
			title: "Count the files",
			model: "fake/fake-model",
			status: "done",
			trace: ["bash ls"],
		};
		const output = "There are 3 files.\n\nWhat it did:\n- bash ls\n\n(conversation agent-1234abcd; /agents opens it)";
		const done = card({ state: "success", output, details });
		expect(done.body).toEqual([
			"",
			"fake/fake-model · done · Took 1.5s",
			"",
			"There are 3 files.",
			"",
			"Conversation agent-1234abcd · /agents opens it",
		]);
		expect(card({ state: "success", output, details, expanded: true }).body).toContain("- bash ls");
	});

	test("a server's control sequences in the task or the activity never reach the terminal", () => {
		const shown = card({
			args: { task: "evil\x1b]52;c;aGk=\x07task" },
			output: progressText("agent-1234abcd", "m\x1b[2J", "\x1b]0;title\x07working"),
		});
		for (const line of [shown.title, ...shown.body]) expect(line).not.toContain("\x1b");
		expect(readProgress("not a conversation id!\nx\ny")).toBeNull();
	});
});

describe("/agents", () => {
	test("threads subagents under the conversation that started them, oldest first; archived ones only when asked", () => {
		const rows = [
			item("main", null, 0),
			item("agent-b", "main", 2),
			item("agent-a", "main", 1),
			item("agent-c", "agent-a", 3),
			item("agent-d", "main", 4, { archived: true }),
		];
		expect(threaded(rows, false).map((r) => `${r.prefix}${r.row.id}`)).toEqual([
			"main",
			"├─ agent-a",
			"│  └─ agent-c",
			"└─ agent-b",
		]);
		expect(threaded(rows, true).map((r) => r.row.id)).toEqual(["main", "agent-a", "agent-c", "agent-b", "agent-d"]);
	});
});

describe("what a task gives back", () => {
	test("the last answer and one line per tool call", () => {
		const entry = (seq: number, kind: string, data: unknown): StoredEntry => ({
			seq,
			conversation: "agent-1",
			kind,
			data,
			author: null,
			requestId: null,
			runId: null,
			at: 0,
		});
		const assistant = (text: string) => ({
			kind: "assistant",
			message: { role: "assistant", content: [{ type: "text", text }], stopReason: "stop" },
		});
		const tool = (command: string) => ({
			kind: "tool",
			callId: "c",
			name: "bash",
			args: { command },
			result: { content: [{ type: "text", text: "" }], isError: false },
			durationMs: 1,
		});
		const result = taskResult("done", [
			entry(1, "user", { kind: "user", text: "task" }),
			entry(2, "assistant", assistant("Looking.")),
			entry(3, "tool", tool("ls\n-la")),
			entry(4, "assistant", assistant("Found it.")),
		]);
		expect(result).toEqual({ outcome: "done", answer: "Found it.", trace: ["bash ls -la"] });
	});
});

describe("the footer while a subagent's conversation is open", () => {
	const data = (over: Partial<FooterData> = {}): FooterData => ({
		cwd: "/home/me/proj",
		home: "/home/me",
		title: "my session",
		usage: { input: 5200, output: 1700, cacheRead: 0, cacheWrite: 0, cost: 0.042 },
		cacheHitRate: null,
		contextTokens: 1600,
		model: { id: "fake-coder", provider: "fake", contextWindow: 200_000, reasoning: false },
		thinkingLevel: "off",
		statuses: [],
		...over,
	});
	const render = (over: Partial<FooterData>) =>
		new Footer(new ThemeRef(theme), data(over)).render(100).map((l) => plain(l).trimEnd());

	test("the crumb reads cwd • title › subagent, its control characters shown, not sent", () => {
		expect(render({ conversation: "Count the files" })[0]).toBe("~/proj • my session › Count the files");
		// Shown as symbols, never sent to the terminal as a sequence.
		expect(render({ conversation: "x\x1b]0;owned\x07y" })[0]).toBe("~/proj • my session › x␛]0;owned␇y");
		expect(render({})[0]).toBe("~/proj • my session");
	});

	test("the session's cost, labelled, when its subagents cost more than this conversation", () => {
		expect(render({ sessionCost: 0.142 })[1]).toMatch(/\$0\.042 session \$0\.142 /);
		expect(render({ sessionCost: 0.042 })[1]).not.toContain("session");
	});
});
