import { describe, expect, test } from "bun:test";
import { setKeybindings } from "@earendil-works/pi-tui";
import { CommandRegistry } from "../../../src/guest/commands.ts";
import { buildKeymap } from "../../../src/guest/keymap.ts";
import type { SessionRow } from "../../../src/plugins/sessions/contract.ts";
import { sessionTree, type TreeOptions, treePrefix } from "../../../src/plugins/sessions/tui/session-tree.ts";
import { TreeSelector } from "../../../src/plugins/sessions/tui/tree-selector.ts";
import { Theme } from "../../../src/ui/theme/theme.ts";
import { ThemeRef } from "../../../src/ui/theme/theme-ref.ts";
import { sessionRow } from "../../support/session-row.ts";

setKeybindings(buildKeymap({ platform: "linux", windowsKeys: false }, new CommandRegistry().all(), {}).manager);
const plain = (lines: string[]) => lines.map((l) => l.replace(/\x1b\[[0-9;]*m/g, "").trimEnd());
const id = (name: string) => `${name}00000000-0000-4000-8000-000000000000`.slice(0, 36);
const row = (name: string, over: Partial<SessionRow> = {}) =>
	sessionRow({ id: id(name), title: name, createdAt: 1, updatedAt: 1, ...over });

/** a ─ b (fork of a) ─ d (fork of b); a ─ c (a later fork of a); e alone; an unused and an archived one. */
const ROWS: SessionRow[] = [
	row("a", { updatedAt: 5 }),
	row("b", { parent: id("a"), createdAt: 2 }),
	row("c", { parent: id("a"), createdAt: 3, pinned: true }),
	row("d", { parent: id("b"), createdAt: 4 }),
	row("e", { updatedAt: 9 }),
	row("f", { title: "" }),
	row("g", { archived: true }),
];
const base: TreeOptions = { current: id("d"), filter: "default", query: "", folded: new Set() };
const shown = (options: Partial<TreeOptions> = {}) =>
	sessionTree(ROWS, { ...base, ...options }).map((n) => `${treePrefix(n)}${n.onPath ? "•" : ""}${n.row.title}`);

describe("the session tree (/tree): sessions and their forks", () => {
	test("by default, the open session's tree: its path marked and its branch first, forks in the order made", () => {
		expect(shown()).toEqual(["•a", "├⊟ •b", "│  └─ •d", "└─ c"]);
		expect(shown({ current: id("c") })).toEqual(["•a", "├─ •c", "└⊟ b", "   └─ d"]);
	});

	test("all: every used session, the open one's tree first, then by latest activity; pinned: the pinned ones", () => {
		expect(shown({ filter: "all" })).toEqual(["•a", "├⊟ •b", "│  └─ •d", "└─ c", "e"]);
		expect(shown({ filter: "all", current: id("e") })).toEqual(["•e", "a", "├⊟ b", "│  └─ d", "└─ c"]);
		expect(shown({ filter: "pinned" })).toEqual(["c"]);
	});

	test("a search keeps the matches, each under its nearest shown ancestor; a fold hides a session's forks", () => {
		expect(shown({ query: "d" })).toEqual(["•d"]);
		expect(shown({ folded: new Set([id("b")]) })).toEqual(["•a", "├⊞ •b", "└─ c"]);
	});

	test("damaged data (a fork that is its own grandparent) neither hangs nor loses a session", () => {
		const looped = [row("x", { parent: id("y") }), row("y", { parent: id("x") })];
		const nodes = sessionTree(looped, { ...base, current: id("x"), filter: "all" });
		expect(nodes.map((n) => n.row.title).sort()).toEqual(["x", "y"]);
		const self = sessionTree([row("z", { parent: id("z") })], { ...base, current: id("z") });
		expect(self.map((n) => n.row.title)).toEqual(["z"]);
	});
});

describe("the tree selector", () => {
	function selector(current = id("d")) {
		const calls: string[] = [];
		const s = new TreeSelector({
			theme: new ThemeRef(Theme.ansi()),
			rows: () => ROWS,
			current,
			maxVisible: 10,
			keys: (key) => ({ "tui.select.up": ["up"], "tui.select.down": ["down"] })[key] ?? [],
			now: () => 10,
			open: (session) => calls.push(`open ${session.slice(0, 1)}`),
			togglePin: (r) => calls.push(`pin ${r.title}`),
			copy: (r) => calls.push(`copy ${r.title}`),
			close: () => calls.push("close"),
		});
		return { s, calls, lines: () => plain(s.render(100)) };
	}

	test("pi's frame and rows: the open session selected, the counter, the filter's label", () => {
		const { s, lines } = selector();
		expect(lines().slice(0, 3)).toEqual(["", "─".repeat(100), "   Session Tree"]);
		expect(lines()).toContain("› │  └─ • d");
		expect(lines()).toContain("  (3/4)");
		s.handleInput("\x01"); // ctrl+a: all
		expect(lines()).toContain("  (3/5) [all]");
	});

	test("keys: move, fold, search, Enter opens, Escape clears the search before it closes", () => {
		const { s, calls, lines } = selector();
		s.handleInput("\x1b[A");
		expect(lines()).toContain("› ├⊟ • b");
		s.handleInput("\x1b[1;5D"); // ctrl+left folds b
		expect(lines()).toContain("› ├⊞ • b");
		s.handleInput("\x1b[1;5D"); // and again goes up to a
		expect(lines()).toContain("› • a");
		s.handleInput("c");
		expect(lines()).toContain("  Type to search: c");
		expect(lines().filter((l) => l.startsWith("› ") || l.includes("•"))).toEqual(["› [pinned] c"]);
		s.handleInput("\r");
		s.handleInput("\x1b");
		expect(lines()).toContain("  (1/4)");
		s.handleInput("L");
		s.handleInput("\x1b");
		expect(calls).toEqual(["open c", "pin a", "close"]);
	});
});
