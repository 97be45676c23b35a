/**
 * pi's "Session Tree" selector (/tree, and a double Escape) on p2's tree of sessions and their forks: pi's
 * frame, help line, search line, rows (`›` cursor, `•` on the open session's path, `├⊟`/`└⊞` connectors, the
 * counter and the filter's label) and keys. Enter opens the session; what pi's keys do that has no meaning for
 * sessions is left out of the help (see the README's differences from pi).
 */
import {
	type Component,
	getKeybindings,
	truncateToWidth,
	visibleWidth,
	wrapTextWithAnsi,
} from "@earendil-works/pi-tui";
import { keyText, matchesId } from "../../../guest/keymap.ts";
import { visibleText } from "../../../ui/text.ts";
import type { ThemeRef } from "../../../ui/theme/theme-ref.ts";
import type { SessionRow } from "../contract.ts";
import { sessionTree, TREE_FILTERS, type TreeFilter, type TreeRow, treePrefix, treeTime } from "./session-tree.ts";

export interface TreeSelectorOptions {
	readonly theme: ThemeRef;
	/** The catalog now (it changes while the tree is open). */
	rows(): readonly SessionRow[];
	readonly current: string | undefined;
	/** Rows of the list: pi shows half the terminal's height. */
	readonly maxVisible: number;
	keys(id: string): string[];
	now(): number;
	open(id: string): void;
	/** pi's label: a session's pin. */
	togglePin(row: SessionRow): void;
	/** pi's Ctrl+X copies the entry: here the session's id (the launcher asks first). */
	copy(row: SessionRow): void;
	close(): void;
}

const FILTER_LABELS: Record<TreeFilter, string> = { default: "", pinned: " [pinned]", all: " [all]" };

export class TreeSelector implements Component {
	readonly capturesViewportInput = true;
	readonly #options: TreeSelectorOptions;
	readonly #folded = new Set<string>();
	#filter: TreeFilter = "default";
	#query = "";
	#times = false;
	/** The selected session: kept across filters, folds and catalog changes while it is shown. */
	#selectedId: string | undefined;

	constructor(options: TreeSelectorOptions) {
		this.#options = options;
		this.#selectedId = options.current;
	}

	#nodes(): TreeRow[] {
		return sessionTree(this.#options.rows(), {
			current: this.#options.current,
			filter: this.#filter,
			query: this.#query,
			folded: this.#folded,
		});
	}

	/** The selected row's index: the selected session, or its nearest shown ancestor, or the last row. */
	#selectedIndex(nodes: readonly TreeRow[]): number {
		if (!nodes.length) return 0;
		const rows = new Map(this.#options.rows().map((r) => [r.id, r]));
		const seen = new Set<string>();
		for (let id = this.#selectedId; id && !seen.has(id); id = rows.get(id)?.parent ?? undefined) {
			seen.add(id);
			const at = nodes.findIndex((n) => n.row.id === id);
			if (at >= 0) return at;
		}
		return nodes.length - 1;
	}

	invalidate(): void {}

	render(width: number): string[] {
		const t = this.#options.theme.current;
		const fit = (line: string) => truncateToWidth(line, width, "");
		const border = t.rule(width);
		const nodes = this.#nodes();
		const selected = this.#selectedIndex(nodes);
		const search = `  ${t.fg("muted", "Type to search:")} ${this.#query ? t.fg("accent", visibleText(this.#query, false)) : ""}`;
		const lines = [
			"",
			border,
			fit(` ${t.bold("  Session Tree")}`),
			...this.#help(width),
			`${fit(search)}\x1b[7m \x1b[27m`,
			border,
			"",
		];
		const label = FILTER_LABELS[this.#filter] + (this.#times ? " [+time]" : "");
		if (!nodes.length) {
			lines.push(fit(t.fg("muted", "  No sessions found")), fit(t.fg("muted", `  (0/0)${label}`)));
		} else {
			const max = this.#options.maxVisible;
			const start = Math.max(0, Math.min(selected - Math.floor(max / 2), nodes.length - max));
			for (let i = start; i < Math.min(nodes.length, start + max); i++) {
				lines.push(this.#row(nodes[i]!, i === selected, width));
			}
			lines.push(fit(t.fg("muted", `  (${selected + 1}/${nodes.length})${label}`)));
		}
		lines.push("", border);
		return lines;
	}

	/** pi's help: its items joined with ` · `, wrapped at the width, in muted. */
	#help(width: number): string[] {
		const t = this.#options.theme.current;
		const k = (...ids: string[]) => compactKeys(ids.map((id) => this.#options.keys(id)[0]).filter(isKey));
		// [keys, what they do, whether the words come first]; an item without keys is left out.
		const help: [string, string, boolean][] = [
			[arrows(k("tui.select.up", "tui.select.down")), "move", false],
			[arrows(k("tui.editor.cursorLeft", "tui.editor.cursorRight")), "page", false],
			[arrows(k("app.tree.foldOrUp", "app.tree.unfoldOrDown")), "branch", false],
			[k("app.message.copy"), "copy id", false],
			[k("app.tree.editLabel"), "pin", false],
			[k("app.tree.toggleLabelTimestamp"), "time", false],
			[k("app.tree.filter.default", "app.tree.filter.labeledOnly", "app.tree.filter.all"), "filters", true],
			[k("app.tree.filter.cycleForward", "app.tree.filter.cycleBackward"), "cycle", true],
		];
		const items = help
			.filter(([keys]) => keys)
			.map(([keys, what, first]) => (first ? `${what} ${keys}` : `${keys} ${what}`));
		const out: string[] = [];
		let line = "";
		for (const item of items) {
			const next = line ? `${line} · ${item}` : `  ${item}`;
			if (line && visibleWidth(next) > width) {
				out.push(...wrapTextWithAnsi(line, width));
				line = `  ${item}`;
			} else line = next;
		}
		if (line) out.push(...wrapTextWithAnsi(line, width));
		return out.map((l) => t.fg("muted", l));
	}

	#row(node: TreeRow, selected: boolean, width: number): string {
		const t = this.#options.theme.current;
		const { row } = node;
		const cursor = selected ? t.fg("accent", "› ") : "  ";
		const fold = node.folded && node.depth === 0 ? t.fg("accent", "⊞ ") : "";
		const path = node.onPath ? t.fg("accent", "• ") : "";
		const pin = row.pinned ? t.fg("warning", "[pinned] ") : "";
		const time = this.#times ? t.fg("muted", `${treeTime(row.updatedAt, this.#options.now())} `) : "";
		const title = row.title ? visibleText(row.title, false).replace(/\s+/g, " ") : t.fg("muted", "(untitled)");
		const busy = row.busy ? t.fg("dim", " ·working") : "";
		const body = `${t.fg("dim", treePrefix(node))}${fold}${path}${pin}${time}${selected ? t.bold(title) : title}${busy}`;
		const line = truncateToWidth(`${cursor}${body}`, width, "");
		return selected ? t.bg("selectedBg", line) : line;
	}

	handleInput(data: string): void {
		const kb = getKeybindings();
		const nodes = this.#nodes();
		const at = this.#selectedIndex(nodes);
		const node = nodes[at];
		const select = (index: number) => {
			this.#selectedId = nodes[Math.max(0, Math.min(nodes.length - 1, index))]?.row.id ?? this.#selectedId;
		};
		const refilter = (filter: TreeFilter) => {
			this.#filter = filter;
			this.#folded.clear();
		};
		const max = this.#options.maxVisible;
		if (kb.matches(data, "tui.select.up")) select(at === 0 ? nodes.length - 1 : at - 1);
		else if (kb.matches(data, "tui.select.down")) select(at === nodes.length - 1 ? 0 : at + 1);
		else if (matchesId(data, "app.tree.foldOrUp")) {
			if (node?.foldable && !node.folded) this.#folded.add(node.row.id);
			else if (node?.parent) this.#selectedId = node.parent;
		} else if (matchesId(data, "app.tree.unfoldOrDown")) {
			if (node?.folded) this.#folded.delete(node.row.id);
			else if (node?.foldable) select(at + 1);
		} else if (kb.matches(data, "tui.editor.cursorLeft") || kb.matches(data, "tui.select.pageUp")) select(at - max);
		else if (kb.matches(data, "tui.editor.cursorRight") || kb.matches(data, "tui.select.pageDown")) select(at + max);
		else if (kb.matches(data, "tui.select.confirm")) {
			if (node) this.#options.open(node.row.id);
		} else if (matchesId(data, "app.message.copy")) {
			if (node) this.#options.copy(node.row);
		} else if (kb.matches(data, "tui.select.cancel")) {
			if (!this.#query) return this.#options.close();
			this.#query = "";
			this.#folded.clear();
		} else if (matchesId(data, "app.tree.filter.default")) refilter("default");
		else if (matchesId(data, "app.tree.filter.labeledOnly")) refilter(this.#filter === "pinned" ? "default" : "pinned");
		else if (matchesId(data, "app.tree.filter.all")) refilter(this.#filter === "all" ? "default" : "all");
		else if (matchesId(data, "app.tree.filter.cycleForward") || matchesId(data, "app.tree.filter.cycleBackward")) {
			const step = matchesId(data, "app.tree.filter.cycleForward") ? 1 : -1;
			const index = TREE_FILTERS.indexOf(this.#filter);
			refilter(TREE_FILTERS[(index + step + TREE_FILTERS.length) % TREE_FILTERS.length]!);
		} else if (matchesId(data, "app.tree.filter.noTools") || matchesId(data, "app.tree.filter.userOnly")) {
			// Sessions have no tool results nor user-only view: these filters mean nothing here.
		} else if (kb.matches(data, "tui.editor.deleteCharBackward")) {
			if (!this.#query) return;
			this.#query = this.#query.slice(0, -1);
			this.#folded.clear();
		} else if (matchesId(data, "app.tree.editLabel")) {
			if (node) this.#options.togglePin(node.row);
		} else if (matchesId(data, "app.tree.toggleLabelTimestamp")) this.#times = !this.#times;
		else if (data.length > 0 && ![...data].some((ch) => /[\x00-\x1f\x7f-\x9f]/.test(ch))) {
			this.#query += data;
			this.#folded.clear();
		}
	}
}

function isKey(key: string | undefined): key is string {
	return key !== undefined;
}

/** pi's compact key list: `ctrl+d/l/a` when the keys share their modifiers, else `a/b`. */
function compactKeys(keys: readonly string[]): string {
	if (keys.length < 2) return keyText(keys);
	const split = keys.map((key) => {
		const at = key.lastIndexOf("+");
		return at < 0 ? { prefix: "", suffix: key } : { prefix: key.slice(0, at + 1), suffix: key.slice(at + 1) };
	});
	const prefix = split[0]!.prefix;
	return prefix && split.every((s) => s.prefix === prefix)
		? `${prefix}${split.map((s) => s.suffix).join("/")}`
		: keyText(keys);
}

/** pi writes arrow keys as arrows in its help. */
function arrows(text: string): string {
	return text
		.replace(/\bup\b/g, "↑")
		.replace(/\bdown\b/g, "↓")
		.replace(/\bleft\b/g, "←")
		.replace(/\bright\b/g, "→");
}
