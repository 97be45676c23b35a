import { describe, expect, test } from "bun:test";
import { setKeybindings } from "@earendil-works/pi-tui";
import { CommandRegistry } from "../../../src/guest/commands.ts";
import { buildKeymap } from "../../../src/guest/keymap.ts";
import type { SearchHit } from "../../../src/plugins/search/contract.ts";
import type { SessionRow } from "../../../src/plugins/sessions/contract.ts";
import { sessionInfo } from "../../../src/plugins/sessions/tui/session-commands.ts";
import { age, SessionSelector } from "../../../src/plugins/sessions/tui/session-selector.ts";
import { Theme } from "../../../src/ui/theme/theme.ts";
import { ThemeRef } from "../../../src/ui/theme/theme-ref.ts";
import { sessionRow } from "../../support/session-row.ts";
import { waitUntil } from "../../support/wait.ts";

const plain = (lines: string[]) => lines.join("\n").replace(/\x1b\[[0-9;]*m|\x1b_[^\x07]*\x07/g, "");
// The selector's own p2 keys come from registered commands, as in the runtime.
const registry = new CommandRegistry();
registry.register({
	id: "p2.sessions.toggleArchived",
	title: "archived",
	keys: ["ctrl+a"],
	when: "overlay:sessions",
	run() {},
});
registry.register({ id: "p2.sessions.pin", title: "pin", keys: ["alt+p"], when: "overlay:sessions", run() {} });
const keymap = buildKeymap({ platform: "linux", windowsKeys: false }, registry.all(), {});
setKeybindings(keymap.manager);
const NOW = 10_000_000_000;

const row = (id: string, title: string, cwd: string, over: Partial<SessionRow> = {}): SessionRow =>
	sessionRow({
		id: `${id}0000000-0000-4000-8000-000000000000`.slice(0, 36),
		title,
		cwd,
		updatedAt: NOW - 5 * 60_000,
		...over,
	});

function selector(rows: SessionRow[], search?: (q: string) => Promise<{ hits: SearchHit[]; truncated: boolean }>) {
	const calls: string[] = [];
	const s = new SessionSelector({
		theme: new ThemeRef(Theme.ansi()),
		rows: () => rows,
		current: rows[0]!.id,
		here: { env: "local", cwd: "/proj" },
		home: "/home/me",
		keys: (id) => keymap.keys(id),
		now: () => NOW,
		...(search ? { search } : {}),
		open: (id) => calls.push(`open ${id.slice(0, 2)}`),
		rename: async (id, title) => void calls.push(`rename ${id.slice(0, 2)} ${title}`),
		archive: async (id, archived) => void calls.push(`${archived ? "archive" : "restore"} ${id.slice(0, 2)}`),
		pin: async (id, pinned) => void calls.push(`pin ${id.slice(0, 2)} ${pinned}`),
		close: () => calls.push("close"),
		requestRender() {},
	});
	return { s, calls, screen: () => plain(s.render(120)) };
}

const type = (s: SessionSelector, text: string) => {
	for (const c of text) s.handleInput(c);
};

describe("the session selector", () => {
	const rows = [
		row("a1", "current work", "/proj"),
		row("b2", "older here", "/proj", { updatedAt: NOW - 3 * 3_600_000 }),
		row("c3", "elsewhere", "/other", { pinned: true, updatedAt: NOW - 2 * 86_400_000 }),
		row("d4", "put away", "/proj", { archived: true }),
	];

	test("pi's header, hints and rows: this folder first, Tab for all with the folder shown, ages", () => {
		const { s, screen } = selector(rows);
		expect(screen()).toContain("Resume Session (Current Folder)");
		expect(screen()).toContain("◉ Current Folder | ○ All  Pinned: All  Sort: Threaded");
		expect(screen()).toContain("tab scope · ctrl+a archived · message search is literal (no re: or phrases)");
		expect(screen()).toMatch(/› current work\s+5m/);
		expect(screen()).toMatch(/ {2}older here\s+3h/);
		expect(screen()).not.toContain("elsewhere");
		s.handleInput("\t");
		expect(screen()).toContain("Resume Session (All)");
		expect(screen()).toMatch(/elsewhere\s+\/other 2d/);
		expect(screen()).not.toContain("put away");
	});

	test("typing filters fuzzily over title, env:cwd and id; Enter opens", () => {
		const { s, calls, screen } = selector(rows);
		s.handleInput("\t");
		type(s, "other");
		expect(screen()).toContain("elsewhere");
		expect(screen()).not.toContain("current work");
		s.handleInput("\r");
		expect(calls).toEqual(["open c3"]);
	});

	test("Ctrl+D asks before archiving; Ctrl+A shows the archived ones, where Ctrl+D restores", async () => {
		const { s, calls, screen } = selector(rows);
		s.handleInput("\x1b[B");
		s.handleInput("\x04");
		expect(screen()).toContain('Archive "older here"? Enter or y to archive, Esc to keep it');
		s.handleInput("\x1b");
		expect(calls).toEqual([]);
		s.handleInput("\x04");
		s.handleInput("y");
		// Ctrl+A is a registered command (overlay:sessions) the runtime's dispatcher runs before the selector.
		s.toggleArchived();
		expect(screen()).toContain("Archived Sessions");
		expect(screen()).toContain("put away");
		s.handleInput("\x04");
		expect(calls).toEqual(["archive b2", "restore d4"]);
	});

	test("Ctrl+R renames in place; Ctrl+N shows pinned only; Ctrl+S cycles threaded, recent and relevance; Ctrl+P shows ids and paths", async () => {
		const { s, calls, screen } = selector(rows);
		s.handleInput("\x12");
		expect(screen()).toContain("Rename:");
		for (let i = 0; i < 20; i++) s.handleInput("\x7f");
		type(s, "renamed");
		s.handleInput("\r");
		expect(calls).toEqual(["rename a1 renamed"]);
		s.handleInput("\t");
		s.handleInput("\x0e");
		expect(screen()).toContain("Pinned: Pinned");
		expect(screen()).toContain("elsewhere");
		expect(screen()).not.toContain("older here");
		s.handleInput("\x13");
		expect(screen()).toContain("Sort: Recent");
		s.handleInput("\x13");
		expect(screen()).toContain("Sort: Fuzzy");
		s.handleInput("\x13");
		expect(screen()).toContain("Sort: Threaded");
		s.handleInput("\x10");
		expect(screen()).toContain(`${rows[2]!.id}  local:/other`);
	});

	test("threaded: forks under their session with pi's tree lines, ordered by their subtree's latest activity", () => {
		const id = (c: string) => `${c}0000000-0000-4000-8000-000000000000`.slice(0, 36);
		const tree = [
			row("a1", "root old", "/proj", { updatedAt: NOW - 9 * 3_600_000 }),
			row("b2", "fork of a", "/proj", { parent: id("a1"), updatedAt: NOW - 60_000 }),
			row("c3", "fork of b", "/proj", { parent: id("b2"), updatedAt: NOW - 2 * 3_600_000 }),
			row("d4", "second fork of a", "/proj", { parent: id("a1"), updatedAt: NOW - 5 * 3_600_000 }),
			row("e5", "root newer", "/proj", { updatedAt: NOW - 30 * 60_000 }),
			row("f6", "orphan", "/proj", { parent: id("zz"), updatedAt: NOW - 8 * 3_600_000 }),
		];
		const { s, screen } = selector(tree);
		const order = screen()
			.split("\n")
			.filter((l) => /root|fork|orphan/.test(l))
			.map((l) =>
				l
					.replace(/\s+\d+[mhd]$/, "")
					.replace(/^[› ] ?/, "")
					.trimEnd(),
			);
		// "root old" is the most recently active tree (its fork b2, a minute ago); a missing parent makes a root.
		expect(order).toEqual([
			"root old",
			"├─ fork of a",
			"│  └─ fork of b",
			"└─ second fork of a",
			"root newer",
			"orphan",
		]);
		// A search lists its matches flat.
		type(s, "fork");
		expect(screen()).not.toContain("├─");
	});

	test("message hits from the server form their own group; choosing one opens its session", async () => {
		const search = async (query: string) => ({
			hits: [
				{
					session: rows[2]!.id,
					conversation: "main",
					seq: 4,
					kind: "user" as const,
					snippet: `…about ${query} here…`,
					at: 0,
				},
			],
			truncated: true,
		});
		const { s, calls, screen } = selector(rows, search);
		type(s, "zebra");
		// The search goes to the server once typing pauses.
		await waitUntil(() => screen().includes("Messages (literal matches)"), "the message hits");
		expect(screen()).toContain("No sessions found");
		expect(screen()).toContain("Messages (literal matches) (more; refine the search)");
		expect(screen()).toContain("elsewhere: …about zebra here…");
		s.handleInput("\r");
		expect(calls).toEqual(["open c3"]);
	});

	test("pi's ages", () => {
		expect(
			[0, 59_000, 60_000, 3_600_000, 86_400_000, 8 * 86_400_000, 40 * 86_400_000, 400 * 86_400_000].map(age),
		).toEqual(["now", "now", "1m", "1h", "1d", "1w", "1mo", "1y"]);
	});

	test("/session says what each number covers", () => {
		const text = sessionInfo(rows[0]!, undefined, {
			conversation: { input: 100, output: 50, cacheRead: 900, cacheWrite: 0, cost: 0.01 },
			session: { input: 300, output: 80, cacheRead: 900, cacheWrite: 0, cost: 0.02 },
			cacheHitRate: 0.9,
			contextTokens: 1200,
			contextUnknown: false,
		});
		expect(text).toContain("**Tokens** (this conversation)");
		expect(text).toContain("- Input: 1,000 (cached 900, 90.0%)");
		expect(text).toContain("**Tokens** (the whole session, every conversation)");
		expect(text).toContain("- Cost: $0.020");
		expect(text).toContain("- Cache hit rate of the latest answer: 90.0%");
	});
});

describe("the session filter", () => {
	test("words match the title fuzzily, or a plain part of env:cwd, or the id's start; never scattered over a path", async () => {
		const { filterRows } = await import("../../../src/plugins/sessions/tui/session-selector.ts");
		const rows = [
			row("a1", "alpha work", "/tmp/p2-x/first-proj"),
			row("b2", "beta work", "/tmp/p2-sessions-e2e-Ahlxpa/second-proj"),
		];
		expect(filterRows(rows, "alpha").map((r) => r.title)).toEqual(["alpha work"]);
		expect(filterRows(rows, "second").map((r) => r.title)).toEqual(["beta work"]);
		expect(filterRows(rows, "work").length).toBe(2);
		expect(filterRows(rows, "b2").map((r) => r.title)).toEqual(["beta work"]);
		expect(filterRows(rows, "alpha second")).toEqual([]);
	});
});

describe("sessions never used", () => {
	test("an untitled session (no message yet) is not listed, unless it is the one open", () => {
		const rows = [row("a1", "", "/proj"), row("b2", "", "/proj"), row("c3", "used", "/proj")];
		const { s } = selector(rows);
		const shown = plain(s.render(120));
		expect(shown).toContain("used");
		expect(shown.match(/\(untitled\)/g)?.length).toBe(1);
	});
});
