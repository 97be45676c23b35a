import { describe, expect, test } from "bun:test";
import { TuiAltScreen } from "@earendil-works/pi-tui";
import { CommandRegistry } from "../../../src/guest/commands.ts";
import { Completions } from "../../../src/guest/completions.ts";
import { EntryRenderers, MarkdownTransformers, ToolRenderers } from "../../../src/guest/registries.ts";
import type { ChatEntry, ChatState } from "../../../src/plugins/chat/contract.ts";
import { ChatScreen } from "../../../src/plugins/chat/tui/screen.ts";
import { arktypeChecks } from "../../../src/protocol/arktype-checks.ts";
import { applyPatch } from "../../../src/protocol/patch.ts";
import { FakeTerminal } from "../../support/fake-terminal.ts";
import { testLayout } from "../../support/guest-context.ts";

const author = { id: "me", name: "Me", role: "deviceOwner" as const };
function state(n: number): ChatState {
	const entries: ChatEntry[] = [];
	for (let i = 0; i < n; i++)
		entries.push({ seq: i + 1, at: i, kind: "user", text: `message ${i + 1}`, author, images: 0 });
	return {
		entries,
		older: false,
		live: null,
		queue: [],
		returned: [],
		model: null,
		thinkingLevel: "off",
		compacting: null,
		shell: null,
	};
}

function screen() {
	const tui = new TuiAltScreen(new FakeTerminal(80, 20), false, undefined, { mouse: false });
	const ui = testLayout(tui);
	const registries = {
		toolRenderers: new ToolRenderers(),
		entryRenderers: new EntryRenderers(arktypeChecks),
		markdownTransformers: new MarkdownTransformers(),
		completions: new Completions(),
	};
	const chat = new ChatScreen({
		ui,
		registries,
		place: "here",
		home: undefined,
		draft: "",
		send: async () => {},
		shell: async () => {},
		loadOlder: async () => ({ entries: [], more: false }),
		commands: new CommandRegistry(),
	});
	tui.setLayoutRoot(chat.root);
	tui.start();
	/** Renders now, again until a render changes nothing (a render may ask for the next, e.g. to scroll). */
	const frame = async () => {
		for (let i = 0; i < 10; i++) {
			const before = tui.getScreenLines().join("\n");
			tui.renderNow();
			if (i > 0 && tui.getScreenLines().join("\n") === before) return;
		}
		throw new Error("the screen kept changing");
	};
	return {
		tui,
		chat,
		registries,
		frame,
		top: () =>
			tui
				.getScreenLines()
				.slice(0, 5)
				.map((l) => l.trimEnd()),
	};
}

describe("the reading position", () => {
	test("survives a new screen (a reload): the same line at the top; none while following the end", async () => {
		const first = screen();
		first.chat.setChat(state(40));
		await first.frame();
		expect(first.chat.readingPosition()).toBeUndefined();
		first.tui.scrollBy(-37);
		await first.frame();
		const before = first.top();
		const anchor = first.chat.readingPosition();
		expect(anchor?.key).toMatch(/^e:\d+$/);

		// As after /reload: the state arrives and the position is restored before the screen has rendered it.
		const second = screen();
		second.chat.setChat(state(40));
		expect(second.chat.restorePosition(anchor!)).toBe(true);
		await second.frame();
		expect(second.top()).toEqual(before);
		expect(before.join("\n")).toMatch(/message \d+/);
		// An item that is not there (yet) is reported, not guessed.
		expect(second.chat.restorePosition({ key: "e:999", offset: 0 })).toBe(false);
		first.tui.stop();
		second.tui.stop();
		first.chat.dispose();
		second.chat.dispose();
	});
});

describe("entry renderers on the screen", () => {
	test("a registered renderer draws its kind of entry in the transcript; others keep pi's look", async () => {
		const { chat, tui, frame, registries } = screen();
		const { Text } = await import("@earendil-works/pi-tui");
		registries.entryRenderers.register("reset", () => new Text("** plugin marker **", 0, 0));
		const s = state(1);
		chat.setChat({ ...s, entries: [...s.entries, { seq: 2, at: 2, kind: "reset", handoff: null }] });
		await frame();
		const lines = tui.getScreenLines().join("\n");
		expect(lines).toContain("** plugin marker **");
		expect(lines).toContain("message 1");
		expect(lines).not.toContain("new context:");
	});

	test("an entry every renderer declines keeps the transcript's own drawing; a plugin's entry without one is named", async () => {
		const { chat, tui, frame, registries } = screen();
		registries.entryRenderers.register("user", () => undefined);
		const s = state(1);
		chat.setChat({
			...s,
			entries: [...s.entries, { seq: 2, at: 2, kind: "plugin", type: "other.note", author: null, data: { text: "x" } }],
		});
		await frame();
		const lines = tui.getScreenLines().join("\n");
		expect(lines).toContain("message 1");
		expect(lines).not.toContain("[user]");
		expect(lines).toContain("[other.note]");
	});
});

describe("status lines", () => {
	test("pi's warnings and errors each stay (a startup problem is not hidden by the next); status lines replace one another", async () => {
		const { chat, frame } = screen();
		chat.setChat(state(0));
		chat.notice("Error: models.json (/d/models.json): is empty", "error");
		chat.notice("Warning: No models available.", "warning");
		chat.notice("Tool output: expanded");
		chat.notice("Tool output: collapsed");
		chat.notice("Warning: a second warning", "warning");
		chat.notice("✓ New session started", "success");
		chat.notice("Tool output: expanded");
		chat.notice("Session name: kept", "note");
		chat.notice("Thinking blocks: hidden");
		await frame();
		const lines = chat.exitLines(80).map((l) => Bun.stripANSI(l).trim());
		const shown = lines.filter((l) => /^(Error:|Warning:|Tool|✓|Session|Thinking)/.test(l));
		expect(shown).toEqual([
			"Error: models.json (/d/models.json): is empty",
			"Warning: No models available.",
			"Tool output: collapsed",
			"Warning: a second warning",
			"✓ New session started",
			"Tool output: expanded",
			"Session name: kept",
			"Thinking blocks: hidden",
		]);
	});
});

describe("pi's notices follow what they are about", () => {
	const shownLines = (tui: TuiAltScreen) =>
		tui
			.getScreenLines()
			.map((l) => Bun.stripANSI(l).trim())
			.filter((l) => l.startsWith("message") || l.startsWith("Resumed") || l.startsWith("Restored") || l === "answer");

	test("said while another session opens (Resumed session, Forked to new session): after its conversation", async () => {
		const { chat, tui, frame } = screen();
		chat.setChat(state(1));
		chat.reset();
		chat.notice("Resumed session");
		chat.setChat(state(3));
		await frame();
		expect(shownLines(tui)).toEqual(["message 1", "message 2", "message 3", "Resumed session"]);
	});

	test("said while an answer is written: after the answer, also once it is committed", async () => {
		const { chat, tui, frame } = screen();
		const live = (parts: string) => ({
			...state(1),
			live: {
				runId: "r1",
				startedAt: 0,
				message: { parts: [{ type: "text" as const, text: parts }], toolCalls: [] },
				tools: [],
				retry: null,
			},
		});
		chat.setChat(live("answer"));
		chat.notice("Restored 2 queued messages to editor");
		await frame();
		expect(shownLines(tui)).toEqual(["message 1", "answer", "Restored 2 queued messages to editor"]);
		const committed: ChatEntry = {
			seq: 2,
			at: 1,
			kind: "assistant",
			parts: [{ type: "text", text: "answer" }],
			toolCalls: [],
			stopReason: "stop",
			provider: "p",
			model: "m",
			usage: null,
		};
		chat.setChat({ ...state(1), entries: [...state(1).entries, committed] });
		await frame();
		expect(shownLines(tui)).toEqual(["message 1", "answer", "Restored 2 queued messages to editor"]);
	});
});

describe("the dock", () => {
	test("pi's blank row stays between the transcript and the editor's top border, however full the transcript", async () => {
		const { chat, tui, frame } = screen();
		chat.setChat(state(40));
		await frame();
		const lines = tui.getScreenLines().map((l) => Bun.stripANSI(l).trimEnd());
		const border = lines.findIndex((l) => /^─{20,}$/.test(l));
		const last = lines.findIndex((l) => l.includes("message 40"));
		// The message's own padding row, then pi's blank row.
		expect(lines.slice(last + 1, border)).toEqual(["", ""]);
	});
});

describe("a streamed answer", () => {
	const start: ChatState = {
		...state(1),
		live: {
			runId: "r1",
			startedAt: 0,
			message: { parts: [{ type: "text", text: "" }], toolCalls: [] },
			tools: [],
			retry: null,
		},
	};
	const append = (s: ChatState, text: string) =>
		applyPatch(s, [{ op: "append", path: ["live", "message", "parts", 0, "text"], text }]);
	const words = "Here is **the plan**:\n\n- read the file\n- split it\n\n```ts\nconst x = 1;\n```\n\nDone.".match(
		/.{1,5}/gs,
	)!;

	test("frame by frame, shows what the whole answer shows at once", async () => {
		const streamed = screen();
		let s = start;
		streamed.chat.setChat(s);
		for (const w of words) {
			s = append(s, w);
			streamed.chat.setChat(s);
			await streamed.frame();
		}
		const whole = screen();
		whole.chat.setChat(s);
		await whole.frame();
		expect(streamed.tui.getScreenLines()).toEqual(whole.tui.getScreenLines());
		expect(streamed.tui.getScreenLines().join("\n")).toContain("Done.");
	});

	test("a frame that also queues a message shows the queue with the text", async () => {
		const { chat, tui, frame } = screen();
		const grown = append(start, "Working on it");
		chat.setChat(start);
		chat.setChat(grown);
		await frame();
		const queued = applyPatch(append(grown, " now"), [
			{
				op: "push",
				path: ["queue"],
				items: [{ id: "q1", mode: "followUp", text: "and then this", author, at: 1, waiting: false }],
			},
		]);
		chat.setChat(queued);
		await frame();
		const text = tui.getScreenLines().join("\n");
		expect(text).toContain("Working on it now");
		expect(text).toContain("and then this");
	});
});
