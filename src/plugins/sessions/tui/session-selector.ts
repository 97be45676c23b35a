/**
 * pi's session selector on the server's catalog, with these adaptations: a local fuzzy filter over
 * title, env:cwd and id; message hits from the server's literal search in their own group; Tab between this
 * directory and all; an archived scope; threaded, recent or relevance order; a pinned filter; rename; delete means
 * archive (with a question), restore in the archived scope.
 */
import {
	type Component,
	fuzzyMatch,
	getKeybindings,
	Input,
	truncateToWidth,
	visibleWidth,
} from "@earendil-works/pi-tui";
import { keyText, matchesId } from "../../../guest/keymap.ts";
import { errorText } from "../../../protocol/errors.ts";
import { shortenHome, visibleText } from "../../../ui/text.ts";
import type { ThemeRef } from "../../../ui/theme/theme-ref.ts";
import type { SessionRow } from "../contract.ts";
import type { SearchHit, SubagentEntry } from "./peers.ts";

const MAX_VISIBLE = 10;
const MAX_HITS_SHOWN = 5;
const SEARCH_DEBOUNCE_MS = 200;

export interface SessionSelectorOptions {
	readonly theme: ThemeRef;
	/** The catalog now (it changes while the selector is open). */
	rows(): readonly SessionRow[];
	readonly current: string | undefined;
	/** The open session's place: the "current folder" scope. */
	readonly here: { readonly env: string; readonly cwd: string } | undefined;
	readonly home: string | undefined;
	keys(id: string): string[];
	now(): number;
	/** The server's literal message search (owners); undefined without one. */
	search?(query: string): Promise<{ hits: SearchHit[]; truncated: boolean }>;
	open(id: string): void;
	/** A session's subagent conversations (the subagents plugin's), nested under it in the threaded order. */
	subagents?(session: string): readonly SubagentEntry[] | undefined;
	/** Opens a subagent's conversation of a session. */
	openConversation?(session: string, conversation: string): void;
	rename(id: string, title: string): Promise<void>;
	archive(id: string, archived: boolean): Promise<void>;
	pin(id: string, pinned: boolean): Promise<void>;
	close(): void;
	requestRender(): void;
}

type Mode = { kind: "list" } | { kind: "rename"; row: SessionRow; input: Input } | { kind: "archive"; row: SessionRow };
type Item =
	| { kind: "session"; row: SessionRow; prefix?: string }
	| { kind: "conversation"; row: SessionRow; conversation: SubagentEntry; prefix: string }
	| { kind: "hit"; hit: SearchHit; row: SessionRow | undefined };

type Sort = "threaded" | "recent" | "relevance";
const SORT_LABELS: Record<Sort, string> = { threaded: "Threaded", recent: "Recent", relevance: "Fuzzy" };

/**
 * pi's threaded order: a session's forks under it, with tree lines; roots and siblings by the latest activity
 * in their subtree, newest first (p2's pinned sessions first among the roots). A parent out of view makes a root.
 */
export function threadRows(rows: readonly SessionRow[]): { row: SessionRow; prefix: string }[] {
	const ids = new Set(rows.map((r) => r.id));
	const children = new Map<string, SessionRow[]>();
	const roots: SessionRow[] = [];
	for (const row of rows) {
		if (row.parent && row.parent !== row.id && ids.has(row.parent)) {
			children.set(row.parent, [...(children.get(row.parent) ?? []), row]);
		} else roots.push(row);
	}
	const latest = new Map<string, number>();
	const activity = (row: SessionRow, seen: Set<string>): number => {
		const known = latest.get(row.id);
		if (known !== undefined) return known;
		if (seen.has(row.id)) return row.updatedAt;
		seen.add(row.id);
		let at = row.updatedAt;
		for (const child of children.get(row.id) ?? []) at = Math.max(at, activity(child, seen));
		latest.set(row.id, at);
		return at;
	};
	const byActivity = (a: SessionRow, b: SessionRow) => activity(b, new Set()) - activity(a, new Set());
	const out: { row: SessionRow; prefix: string }[] = [];
	const walk = (row: SessionRow, depth: number, lines: boolean[], last: boolean, seen: Set<string>) => {
		if (seen.has(row.id)) return;
		seen.add(row.id);
		const branch = depth === 0 ? "" : `${lines.map((on) => (on ? "│  " : "   ")).join("")}${last ? "└─ " : "├─ "}`;
		out.push({ row, prefix: branch });
		const kids = [...(children.get(row.id) ?? [])].sort(byActivity);
		kids.forEach((kid, i) => {
			walk(kid, depth + 1, depth > 0 ? [...lines, !last] : [], i === kids.length - 1, seen);
		});
	};
	const seen = new Set<string>();
	for (const root of [...roots].sort((a, b) => Number(b.pinned) - Number(a.pinned) || byActivity(a, b))) {
		walk(root, 0, [], true, seen);
	}
	return out;
}

/**
 * Every word of the query must match: fuzzily in the title, or as a plain part of `env:cwd`, or as the
 * start of the id (a fuzzy match over a path or an id matches almost anything). Best title matches first.
 */
export function filterRows(rows: readonly SessionRow[], query: string): SessionRow[] {
	const words = query.toLowerCase().split(/\s+/).filter(Boolean);
	const scored: { row: SessionRow; score: number }[] = [];
	for (const row of rows) {
		let score = 0;
		const where = `${row.env}:${row.cwd}`.toLowerCase();
		const ok = words.every((word) => {
			const title = fuzzyMatch(word, row.title.toLowerCase());
			if (title.matches) {
				score += title.score;
				return true;
			}
			if (where.includes(word) || row.id.startsWith(word)) {
				score += 100;
				return true;
			}
			return false;
		});
		if (ok) scored.push({ row, score });
	}
	return scored.sort((a, b) => a.score - b.score).map((s) => s.row);
}

/** pi's ages: now, Nm, Nh, Nd, Nw, Nmo, Ny. */
export function age(ms: number): string {
	const minutes = Math.floor(ms / 60_000);
	if (minutes < 1) return "now";
	if (minutes < 60) return `${minutes}m`;
	const hours = Math.floor(minutes / 60);
	if (hours < 24) return `${hours}h`;
	const days = Math.floor(hours / 24);
	if (days < 7) return `${days}d`;
	if (days < 30) return `${Math.floor(days / 7)}w`;
	if (days < 365) return `${Math.floor(days / 30)}mo`;
	return `${Math.floor(days / 365)}y`;
}

export class SessionSelector implements Component {
	readonly capturesViewportInput = true;
	readonly #options: SessionSelectorOptions;
	readonly #search = new Input();
	#scope: "here" | "all";
	#archived = false;
	#sort: Sort = "threaded";
	#pinnedOnly = false;
	#showPath = false;
	#mode: Mode = { kind: "list" };
	#selected = 0;
	#hits: { query: string; hits: SearchHit[]; truncated: boolean } | undefined;
	#searchTimer: ReturnType<typeof setTimeout> | undefined;
	#message = "";

	constructor(options: SessionSelectorOptions) {
		this.#options = options;
		this.#scope = options.here ? "here" : "all";
		// With nothing in this directory, pi's empty state asks for Tab; p2 opens on all of them instead.
		if (options.here && !this.#sessions().length) this.#scope = "all";
		const at = this.#items().findIndex((i) => i.kind === "session" && i.row.id === options.current);
		this.#selected = Math.max(0, at);
	}

	/** The sessions in scope and filter, in the chosen order (threaded: with their tree lines). */
	#sessions(): { row: SessionRow; prefix?: string }[] {
		const { here } = this.#options;
		let rows = this.#options
			.rows()
			.filter((r) => r.archived === this.#archived)
			// A session gets its title from its first message: an untitled one was never used (pi keeps no such file).
			.filter((r) => r.title !== "" || r.id === this.#options.current)
			.filter((r) => this.#scope === "all" || !here || (r.env === here.env && r.cwd === here.cwd))
			.filter((r) => !this.#pinnedOnly || r.pinned);
		const query = this.#search.getValue().trim();
		// pi: the tree only without a search; a search lists its matches flat.
		if (!query && this.#sort === "threaded") return threadRows(rows);
		if (query) {
			rows = filterRows(rows, query);
			if (this.#sort === "recent") rows.sort((a, b) => b.updatedAt - a.updatedAt);
		} else rows = [...rows].sort((a, b) => Number(b.pinned) - Number(a.pinned) || b.updatedAt - a.updatedAt);
		return rows.map((row) => ({ row }));
	}

	#items(): Item[] {
		const query = this.#search.getValue().trim();
		const items: Item[] = [];
		// Threaded (and no search): a session's subagents under it, before its forks.
		const nested = this.#sort === "threaded" && !query && !this.#archived && this.#options.subagents;
		for (const s of this.#sessions()) {
			items.push({ kind: "session", ...s });
			const subagents = nested ? (this.#options.subagents?.(s.row.id) ?? []) : [];
			const indent = (s.prefix ?? "").replace(/├─ $/, "│  ").replace(/└─ $/, "   ");
			subagents.forEach((conversation, i) => {
				const last = i === subagents.length - 1;
				items.push({ kind: "conversation", row: s.row, conversation, prefix: `${indent}${last ? "└▸ " : "├▸ "}` });
			});
		}
		if (this.#hits && this.#hits.query === query) {
			const rows = this.#options.rows();
			for (const hit of this.#hits.hits.slice(0, MAX_HITS_SHOWN * 4)) {
				items.push({ kind: "hit", hit, row: rows.find((r) => r.id === hit.session) });
			}
		}
		return items;
	}

	/** Opens the archived-scope toggle (p2's Ctrl+A) from the registry. */
	toggleArchived(): void {
		this.#archived = !this.#archived;
		this.#selected = 0;
		this.#options.requestRender();
	}

	/** Pins or unpins the selected session (p2's Alt+P). */
	togglePin(): void {
		const item = this.#items()[this.#selected];
		if (item?.kind !== "session") return;
		void this.#act(() => this.#options.pin(item.row.id, !item.row.pinned));
	}

	async #act(work: () => Promise<void>): Promise<void> {
		try {
			await work();
			this.#message = "";
		} catch (error) {
			this.#message = errorText(error);
		}
		this.#options.requestRender();
	}

	#scheduleSearch(): void {
		if (this.#searchTimer) clearTimeout(this.#searchTimer);
		const query = this.#search.getValue().trim();
		const search = this.#options.search;
		if (!search || query.length < 2) {
			this.#hits = undefined;
			return;
		}
		this.#searchTimer = setTimeout(() => {
			search(query).then(
				(result) => {
					if (this.#search.getValue().trim() !== query) return;
					this.#hits = { query, ...result };
					this.#options.requestRender();
				},
				() => {
					this.#hits = undefined;
				},
			);
		}, SEARCH_DEBOUNCE_MS);
	}

	dispose(): void {
		if (this.#searchTimer) clearTimeout(this.#searchTimer);
	}

	invalidate(): void {
		this.#search.invalidate();
	}

	render(width: number): string[] {
		const t = this.#options.theme.current;
		const fit = (line: string) => truncateToWidth(line, width, "");
		const k = (id: string) => keyText(this.#options.keys(id));
		const border = t.rule(width, "accent");
		const title = this.#archived
			? "Archived Sessions"
			: `Resume Session (${this.#scope === "here" ? "Current Folder" : "All"})`;
		const radio = (on: boolean, label: string) => t.fg(on ? "accent" : "muted", `${on ? "◉" : "○"} ${label}`);
		const right = `${radio(this.#scope === "here", "Current Folder")}${t.fg("muted", " | ")}${radio(this.#scope === "all", "All")}  ${t.fg("muted", "Pinned: ")}${t.fg("accent", this.#pinnedOnly ? "Pinned" : "All")}  ${t.fg("muted", "Sort: ")}${t.fg("accent", SORT_LABELS[this.#sort])}`;
		const left = t.bold(title);
		const gap = Math.max(1, width - visibleWidth(left) - visibleWidth(right));
		const hint = (pairs: [string, string][]) =>
			fit(
				pairs
					.map(([key, text]) => `${key ? `${t.fg("dim", key)} ` : ""}${t.fg("muted", text)}`)
					.join(t.fg("muted", " · ")),
			);
		const lines = [
			border,
			fit(`${left}${" ".repeat(gap)}${right}`),
			hint([
				[k("tui.input.tab"), "scope"],
				[k("p2.sessions.toggleArchived"), "archived"],
				["", "message search is literal (no re: or phrases)"],
			]),
			hint([
				[k("app.session.toggleSort"), "sort"],
				[k("app.session.toggleNamedFilter"), "pinned"],
				[k("app.session.delete"), this.#archived ? "restore" : "archive"],
				[k("app.session.togglePath"), `path (${this.#showPath ? "on" : "off"})`],
				[k("app.session.rename"), "rename"],
				[k("p2.sessions.pin"), "pin"],
			]),
			"",
		];
		const mode = this.#mode;
		if (mode.kind === "rename")
			lines.push(fit(`${t.fg("accent", "Rename: ")}${mode.input.render(width - 8)[0] ?? ""}`));
		else if (mode.kind === "archive") {
			lines.push(
				fit(t.fg("error", `Archive "${mode.row.title || mode.row.id}"? Enter or y to archive, Esc to keep it`)),
			);
		} else lines.push(...this.#search.render(width));
		lines.push("");
		const items = this.#items();
		const sessions = items.filter((i) => i.kind === "session");
		this.#selected = Math.min(this.#selected, Math.max(0, items.length - 1));
		if (!sessions.length) {
			lines.push(
				t.fg(
					"muted",
					this.#scope === "here" && !this.#search.getValue() && !this.#archived
						? `  No sessions in current folder. Press ${k("tui.input.tab")} to view all.`
						: "  No sessions found",
				),
			);
		}
		const start = Math.max(0, Math.min(this.#selected - Math.floor(MAX_VISIBLE / 2), items.length - MAX_VISIBLE));
		let shownHitsHeader = false;
		for (let i = start; i < Math.min(items.length, start + MAX_VISIBLE); i++) {
			const item = items[i]!;
			if (item.kind === "hit" && !shownHitsHeader) {
				shownHitsHeader = true;
				const more = this.#hits?.truncated ? " (more; refine the search)" : "";
				lines.push("", t.fg("muted", `  Messages (literal matches)${more}`));
			}
			lines.push(this.#row(item, i === this.#selected, width));
		}
		if (items.length > MAX_VISIBLE) lines.push(t.fg("dim", `  (${this.#selected + 1}/${items.length})`));
		if (this.#message) lines.push("", fit(t.fg("error", `  ${this.#message}`)));
		lines.push("", border);
		return lines;
	}

	#row(item: Item, selected: boolean, width: number): string {
		const t = this.#options.theme.current;
		const now = this.#options.now();
		const cursor = selected ? t.fg("accent", "› ") : "  ";
		let text: string;
		let right: string;
		if (item.kind === "conversation") {
			const label = visibleText(item.conversation.title || item.conversation.id, false);
			text = `${cursor}${t.fg("dim", item.prefix)}${selected ? t.bold(label) : t.fg("muted", label)}${t.fg("dim", " ·subagent")}`;
			right = item.conversation.status ? t.fg("dim", item.conversation.status) : "";
		} else if (item.kind === "session") {
			const row = item.row;
			const label = this.#showPath ? `${row.id}  ${row.env}:${row.cwd}` : row.title || "(untitled)";
			const shown =
				row.id === this.#options.current ? t.fg("accent", label) : row.pinned ? t.fg("warning", label) : label;
			const tree = item.prefix ? t.fg("dim", item.prefix) : "";
			text = `${cursor}${tree}${selected ? t.bold(shown) : shown}${row.busy ? t.fg("dim", " ·working") : ""}`;
			const where = this.#scope === "all" && !this.#showPath ? `${shortenHome(row.cwd, this.#options.home)} ` : "";
			right = t.fg("dim", `${where}${age(now - row.updatedAt)}`);
		} else {
			const title = item.row?.title || item.hit.session.slice(0, 8);
			const snippet = item.hit.snippet.replace(/\s+/g, " ");
			text = `${cursor}${selected ? t.bold(title) : title}${t.fg("muted", `: ${snippet}`)}`;
			right = item.row ? t.fg("dim", age(now - item.row.updatedAt)) : "";
		}
		const room = width - visibleWidth(right) - 1;
		const left = truncateToWidth(text, Math.max(1, room), "…");
		const line = `${left}${" ".repeat(Math.max(1, width - visibleWidth(left) - visibleWidth(right)))}${right}`;
		return selected ? t.bg("selectedBg", truncateToWidth(line, width, "")) : truncateToWidth(line, width, "");
	}

	handleInput(data: string): void {
		const kb = getKeybindings();
		const mode = this.#mode;
		if (mode.kind === "rename") {
			if (kb.matches(data, "tui.select.cancel")) this.#mode = { kind: "list" };
			else if (kb.matches(data, "tui.input.submit")) {
				const title = mode.input.getValue().trim();
				this.#mode = { kind: "list" };
				if (title) void this.#act(() => this.#options.rename(mode.row.id, title));
			} else mode.input.handleInput(data);
			return;
		}
		if (mode.kind === "archive") {
			this.#mode = { kind: "list" };
			if (kb.matches(data, "tui.select.confirm") || data === "y" || data === "Y") {
				void this.#act(() => this.#options.archive(mode.row.id, true));
			}
			return;
		}
		const items = this.#items();
		const item = items[this.#selected];
		const session = item?.kind === "session" ? item.row : undefined;
		if (kb.matches(data, "tui.input.tab")) {
			if (!this.#options.here) return;
			this.#scope = this.#scope === "here" ? "all" : "here";
			this.#selected = 0;
		} else if (matchesId(data, "app.session.toggleSort")) {
			// pi's cycle: threaded, recent, relevance.
			this.#sort = this.#sort === "threaded" ? "recent" : this.#sort === "recent" ? "relevance" : "threaded";
		} else if (matchesId(data, "app.session.toggleNamedFilter")) {
			this.#pinnedOnly = !this.#pinnedOnly;
			this.#selected = 0;
		} else if (matchesId(data, "app.session.togglePath")) {
			this.#showPath = !this.#showPath;
		} else if (matchesId(data, "app.session.rename")) {
			if (!session) return;
			const input = new Input();
			// Input keeps its cursor where it was (0) on setValue; typing it in puts the cursor at the end.
			input.handleInput(`\x1b[200~${session.title}\x1b[201~`);
			this.#mode = { kind: "rename", row: session, input };
		} else if (matchesId(data, "app.session.delete")) {
			if (!session) return;
			if (this.#archived) void this.#act(() => this.#options.archive(session.id, false));
			else this.#mode = { kind: "archive", row: session };
		} else if (kb.matches(data, "tui.select.up")) {
			if (items.length) this.#selected = this.#selected === 0 ? items.length - 1 : this.#selected - 1;
		} else if (kb.matches(data, "tui.select.down")) {
			if (items.length) this.#selected = this.#selected === items.length - 1 ? 0 : this.#selected + 1;
		} else if (kb.matches(data, "tui.select.confirm")) {
			if (!item) return;
			if (item.kind === "conversation") {
				this.dispose();
				this.#options.openConversation?.(item.row.id, item.conversation.id);
				return;
			}
			const id = item.kind === "session" ? item.row.id : item.hit.session;
			const row = item.kind === "session" ? item.row : item.row;
			if (row?.archived) void this.#act(() => this.#options.archive(id, false));
			this.#options.open(id);
		} else if (kb.matches(data, "tui.select.cancel")) {
			this.dispose();
			this.#options.close();
		} else {
			const before = this.#search.getValue();
			this.#search.handleInput(data);
			if (this.#search.getValue() !== before) {
				this.#selected = 0;
				this.#scheduleSearch();
			}
		}
	}
}
