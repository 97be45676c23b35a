/**
 * The session tree that /tree shows: in p2 a session's branches are its forks, so the tree is the
 * sessions and the forks made from them. This is the pure part: which sessions are shown (pi's filters, its
 * search, its folds) and where each stands, as rows for the selector to draw.
 */
import type { SessionRow } from "../contract.ts";

/**
 * pi's filter modes, as they apply to sessions: `default` the open session's tree (its first ancestor and
 * every fork below it), `pinned` the pinned sessions (pi's labeled entries: a pin is p2's bookmark), `all`
 * every session on the server, each tree from its own root.
 */
export type TreeFilter = "default" | "pinned" | "all";
export const TREE_FILTERS: readonly TreeFilter[] = ["default", "pinned", "all"];

export interface TreeOptions {
	/** The open session: its path from the root is marked, and its branch comes first. */
	readonly current: string | undefined;
	readonly filter: TreeFilter;
	/** Every word must be in the title, the directory or the start of the id. */
	readonly query: string;
	/** Sessions whose forks are hidden. */
	readonly folded: ReadonlySet<string>;
}

export interface TreeRow {
	readonly row: SessionRow;
	/** Levels below its root in the shown tree. */
	readonly depth: number;
	/** For each level above this one: whether a line goes on down past this row (`│`). */
	readonly gutters: readonly boolean[];
	/** The last of its siblings (`└─` rather than `├─`). */
	readonly last: boolean;
	/** Forks of it are shown, or would be if it were not folded. */
	readonly foldable: boolean;
	readonly folded: boolean;
	/** The open session or one of its ancestors (pi's active path, marked `•`). */
	readonly onPath: boolean;
	/** The nearest shown ancestor, if any. */
	readonly parent: string | undefined;
}

/** A session gets its title from its first message: an untitled one was never used (pi keeps no such file). */
function listed(rows: readonly SessionRow[], current: string | undefined): SessionRow[] {
	return rows.filter((r) => !r.archived && (r.title !== "" || r.id === current));
}

function matches(row: SessionRow, words: readonly string[]): boolean {
	const text = `${row.title} ${row.cwd}`.toLowerCase();
	return words.every((word) => text.includes(word) || row.id.startsWith(word));
}

/** The sessions' rows in pi's tree order, with what the selector needs to draw each. */
export function sessionTree(rows: readonly SessionRow[], options: TreeOptions): TreeRow[] {
	const { current } = options;
	const all = listed(rows, current);
	const byId = new Map(all.map((r) => [r.id, r]));
	const linked = (row: SessionRow) =>
		row.parent && row.parent !== row.id && byId.has(row.parent) ? row.parent : undefined;
	/** Damaged data may link sessions in a circle: each of them is then a root, so none is lost. */
	const circular = (row: SessionRow): boolean => {
		const seen = new Set<string>();
		for (let at = linked(row); at; at = linked(byId.get(at)!)) {
			if (at === row.id) return true;
			if (seen.has(at)) return false;
			seen.add(at);
		}
		return false;
	};
	const parents = new Map(all.map((row) => [row.id, circular(row) ? undefined : linked(row)]));
	/** The ancestors of a session, nearest first. */
	const ancestors = (id: string): string[] => {
		const out: string[] = [];
		for (let up = parents.get(id); up; up = parents.get(up)) out.push(up);
		return out;
	};
	const path = new Set(current && byId.has(current) ? [current, ...ancestors(current)] : []);

	// Which sessions the filter and the search show.
	const words = options.query.toLowerCase().split(/\s+/).filter(Boolean);
	const root = current && byId.has(current) ? (ancestors(current).at(-1) ?? current) : undefined;
	const inFamily = (row: SessionRow) => row.id === root || ancestors(row.id).at(-1) === root;
	const shown = all.filter(
		(row) =>
			(options.filter === "all" || !root || options.filter === "pinned" || inFamily(row)) &&
			(options.filter !== "pinned" || row.pinned) &&
			matches(row, words),
	);
	const shownIds = new Set(shown.map((r) => r.id));
	/** A shown session hangs under its nearest shown ancestor (pi's filtered tree). */
	const visibleParent = (row: SessionRow) => ancestors(row.id).find((id) => shownIds.has(id));
	const children = new Map<string | undefined, SessionRow[]>();
	for (const row of shown) {
		const parent = visibleParent(row);
		children.set(parent, [...(children.get(parent) ?? []), row]);
	}
	// pi puts the branch with the open session first; then forks in the order they were made, and trees by
	// their latest activity, newest first.
	const latest = new Map<string, number>();
	const activity = (row: SessionRow): number => {
		const known = latest.get(row.id);
		if (known !== undefined) return known;
		latest.set(row.id, row.updatedAt);
		const at = Math.max(row.updatedAt, ...(children.get(row.id) ?? []).map(activity));
		latest.set(row.id, at);
		return at;
	};
	const onPathFirst = (a: SessionRow, b: SessionRow) => Number(path.has(b.id)) - Number(path.has(a.id));
	const out: TreeRow[] = [];
	const walk = (row: SessionRow, depth: number, gutters: boolean[], last: boolean, parent: string | undefined) => {
		const kids = [...(children.get(row.id) ?? [])].sort((a, b) => onPathFirst(a, b) || a.createdAt - b.createdAt);
		const folded = options.folded.has(row.id) && kids.length > 0;
		out.push({ row, depth, gutters, last, foldable: kids.length > 0, folded, onPath: path.has(row.id), parent });
		if (folded) return;
		kids.forEach((kid, i) => {
			walk(kid, depth + 1, depth > 0 ? [...gutters, !last] : [], i === kids.length - 1, row.id);
		});
	};
	const roots = [...(children.get(undefined) ?? [])].sort((a, b) => onPathFirst(a, b) || activity(b) - activity(a));
	roots.forEach((r, i) => {
		walk(r, 0, [], i === roots.length - 1, undefined);
	});
	return out;
}

/** pi's tree prefix for a row: gutters, then the connector with its fold mark (`├⊟ `, `└⊞ `, `├─ `). */
export function treePrefix(node: TreeRow): string {
	if (node.depth === 0) return "";
	const gutters = node.gutters.map((on) => (on ? "│  " : "   ")).join("");
	const mark = node.folded ? "⊞" : node.foldable ? "⊟" : "─";
	return `${gutters}${node.last ? "└" : "├"}${mark} `;
}

/** pi's label time: `HH:MM` today, `M/D HH:MM` this year, else `YY/M/D HH:MM`. */
export function treeTime(at: number, now: number): string {
	const date = new Date(at);
	const today = new Date(now);
	const time = `${String(date.getHours()).padStart(2, "0")}:${String(date.getMinutes()).padStart(2, "0")}`;
	const sameYear = date.getFullYear() === today.getFullYear();
	if (sameYear && date.getMonth() === today.getMonth() && date.getDate() === today.getDate()) return time;
	const day = `${date.getMonth() + 1}/${date.getDate()}`;
	return sameYear ? `${day} ${time}` : `${String(date.getFullYear()).slice(-2)}/${day} ${time}`;
}
