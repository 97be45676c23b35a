/**
 * /agents: the session's conversations, the main one first and each subagent under the conversation that
 * started it, with its status and age. Enter opens one; Ctrl+A shows the archived ones too; Ctrl+D archives
 * or restores the selected subagent (participants); Escape closes.
 */
import { type Component, getKeybindings, matchesKey, truncateToWidth, visibleWidth } from "@earendil-works/pi-tui";
import { matchesId } from "../../../guest/keymap.ts";
import { visibleText } from "../../../ui/text.ts";
import type { ThemeRef } from "../../../ui/theme/theme-ref.ts";
import { type ConversationItem, MAIN_CONVERSATION } from "../contract.ts";

export interface AgentsSelectorOptions {
	readonly theme: ThemeRef;
	/** The conversations now (they change while the list is open). */
	rows(): readonly ConversationItem[];
	/** The conversation on the screen. */
	readonly current: string;
	/** May archive and restore (a participant). */
	readonly mayArchive: boolean;
	readonly maxVisible: number;
	now(): number;
	open(row: ConversationItem): void;
	archive(row: ConversationItem, archived: boolean): Promise<void>;
	close(): void;
	requestRender(): void;
}

export interface ThreadedRow {
	readonly row: ConversationItem;
	readonly prefix: string;
}

/** The conversations as a tree: each under its parent (or under the main one when its parent is not shown). */
export function threaded(rows: readonly ConversationItem[], showArchived: boolean): ThreadedRow[] {
	const shown = rows.filter((r) => showArchived || !r.archived || r.id === MAIN_CONVERSATION);
	const ids = new Set(shown.map((r) => r.id));
	const children = new Map<string, ConversationItem[]>();
	for (const row of shown) {
		if (row.id === MAIN_CONVERSATION) continue;
		const parent = row.parent && ids.has(row.parent) ? row.parent : MAIN_CONVERSATION;
		const list = children.get(parent) ?? [];
		list.push(row);
		children.set(parent, list);
	}
	const out: ThreadedRow[] = [];
	const seen = new Set<string>();
	const walk = (id: string, indent: string) => {
		const list = (children.get(id) ?? []).sort((a, b) => a.createdAt - b.createdAt);
		list.forEach((row, i) => {
			if (seen.has(row.id)) return;
			seen.add(row.id);
			const last = i === list.length - 1;
			out.push({ row, prefix: `${indent}${last ? "└─ " : "├─ "}` });
			walk(row.id, `${indent}${last ? "   " : "│  "}`);
		});
	};
	const main = shown.find((r) => r.id === MAIN_CONVERSATION);
	if (main) out.push({ row: main, prefix: "" });
	seen.add(MAIN_CONVERSATION);
	walk(MAIN_CONVERSATION, "");
	return out;
}

export function age(ms: number): string {
	const minutes = Math.floor(ms / 60_000);
	if (minutes < 1) return "now";
	if (minutes < 60) return `${minutes}m`;
	const hours = Math.floor(minutes / 60);
	if (hours < 24) return `${hours}h`;
	return `${Math.floor(hours / 24)}d`;
}

export class AgentsSelector implements Component {
	readonly capturesViewportInput = true;
	readonly #options: AgentsSelectorOptions;
	#archived = false;
	#selectedId: string;
	#message: string | undefined;

	constructor(options: AgentsSelectorOptions) {
		this.#options = options;
		this.#selectedId = options.current;
	}

	#rows(): ThreadedRow[] {
		return threaded(this.#options.rows(), this.#archived);
	}

	#selectedIndex(rows: readonly ThreadedRow[]): number {
		const at = rows.findIndex((r) => r.row.id === this.#selectedId);
		return Math.max(at, 0);
	}

	invalidate(): void {}

	render(width: number): string[] {
		const t = this.#options.theme.current;
		const fit = (line: string) => truncateToWidth(line, width, "");
		const rows = this.#rows();
		const selected = this.#selectedIndex(rows);
		const max = Math.max(3, this.#options.maxVisible);
		const start = Math.max(0, Math.min(selected - Math.floor(max / 2), rows.length - max));
		const end = Math.min(start + max, rows.length);
		const now = this.#options.now();
		const lines: string[] = [];
		for (let i = start; i < end; i++) {
			const { row, prefix } = rows[i]!;
			const isSelected = i === selected;
			const cursor = isSelected ? t.fg("accent", "› ") : "  ";
			const name = row.id === MAIN_CONVERSATION ? `main${row.title ? ` · ${row.title}` : ""}` : row.title || row.id;
			const label = visibleText(name, false);
			const shown = row.id === this.#options.current ? t.fg("accent", label) : label;
			const status = row.status
				? t.fg(row.status === "done" ? "success" : row.status === "running" ? "accent" : "error", row.status)
				: "";
			const archived = row.archived ? t.fg("dim", " (archived)") : "";
			const left = `${cursor}${t.fg("dim", prefix)}${isSelected ? t.bold(shown) : shown}${archived}`;
			const when = row.id === MAIN_CONVERSATION ? "" : age(now - (row.endedAt ?? row.createdAt));
			const right = [status, when ? t.fg("dim", when) : ""].filter(Boolean).join(t.fg("dim", " · "));
			const room = width - visibleWidth(right) - 1;
			const cut = truncateToWidth(left, Math.max(1, room), "…");
			const line = `${cut}${" ".repeat(Math.max(1, width - visibleWidth(cut) - visibleWidth(right)))}${right}`;
			lines.push(isSelected ? t.bg("selectedBg", fit(line)) : fit(line));
		}
		if (start > 0 || end < rows.length) lines.push(t.fg("muted", `  (${selected + 1}/${rows.length})`));
		const hint: [string, string][] = [
			["↑↓", "navigate"],
			["enter", "open"],
			["ctrl+a", this.#archived ? "hide archived" : "show archived"],
		];
		if (this.#options.mayArchive) hint.push(["ctrl+d", "archive/restore"]);
		hint.push(["esc", "close"]);
		const border = t.rule(width);
		return [
			border,
			"",
			fit(` ${t.fg("accent", t.bold("Agents"))}${t.fg("muted", " — the main conversation and its subagents")}`),
			"",
			...lines,
			...(this.#message ? ["", fit(` ${t.fg("warning", this.#message)}`)] : []),
			"",
			fit(` ${hint.map(([keys, does]) => `${t.fg("dim", keys)} ${t.fg("muted", does)}`).join("  ")}`),
			"",
			border,
		];
	}

	handleInput(data: string): void {
		const kb = getKeybindings();
		const rows = this.#rows();
		const at = this.#selectedIndex(rows);
		const item = rows[at]?.row;
		this.#message = undefined;
		if (kb.matches(data, "tui.select.up")) {
			const next = rows[at === 0 ? rows.length - 1 : at - 1];
			if (next) this.#selectedId = next.row.id;
		} else if (kb.matches(data, "tui.select.down")) {
			const next = rows[at === rows.length - 1 ? 0 : at + 1];
			if (next) this.#selectedId = next.row.id;
		} else if (kb.matches(data, "tui.select.confirm")) {
			if (item) this.#options.open(item);
		} else if (matchesKey(data, "ctrl+a")) {
			this.#archived = !this.#archived;
		} else if (matchesId(data, "app.session.delete")) {
			if (!item) return;
			if (!this.#options.mayArchive) this.#message = "Only participants archive subagents.";
			else if (item.id === MAIN_CONVERSATION) this.#message = "The main conversation stays.";
			else {
				const archived = !item.archived;
				// Archived out of sight: the selection moves to its neighbour.
				if (archived && !this.#archived) this.#selectedId = (rows[at + 1] ?? rows[at - 1] ?? rows[0]!).row.id;
				this.#options.archive(item, archived).then(
					() => this.#options.requestRender(),
					(error: unknown) => {
						this.#message = error instanceof Error ? error.message : String(error);
						this.#options.requestRender();
					},
				);
			}
		} else if (kb.matches(data, "tui.select.cancel")) {
			this.#options.close();
			return;
		}
		this.#options.requestRender();
	}
}
