/**
 * The order of `@`'s suggestions, as pi's: a name equal to the query first (100), then a name starting with it
 * (80), a name containing it (50), a path containing it (30), folders a little ahead (+10); then shallower,
 * shorter, by name. A query with a slash whose folder exists looks inside that folder, as pi's does. Below
 * what pi would find come pi-tui's fuzzy matches (pi's fd filters by substring; p2 has no fd query).
 */
import { fuzzyFilter } from "../../protocol/pi-tui-parts.ts";
import type { FileSuggestion } from "./contract.ts";

function nameOf(path: string): string {
	const bare = path.endsWith("/") ? path.slice(0, -1) : path;
	return bare.slice(bare.lastIndexOf("/") + 1);
}

/** pi's score of a path (relative to where the query looks) for a query; 0 when it does not match. */
export function scoreEntry(path: string, query: string, dir: boolean): number {
	const name = nameOf(path).toLowerCase();
	const q = query.toLowerCase();
	let score = 0;
	if (name === q) score = 100;
	else if (name.startsWith(q)) score = 80;
	else if (name.includes(q)) score = 50;
	else if (path.toLowerCase().includes(q)) score = 30;
	return dir && score > 0 ? score + 10 : score;
}

function depth(path: string): number {
	return path.split("/").filter(Boolean).length;
}

function byPlace(a: FileSuggestion, b: FileSuggestion): number {
	return depth(a.path) - depth(b.path) || a.path.length - b.path.length || a.path.localeCompare(b.path);
}

export function rankFiles(entries: readonly FileSuggestion[], query: string): FileSuggestion[] {
	if (!query) return [...entries].sort(byPlace);
	// `src/ma`: inside `src/` when the index has that folder, the rest of the query against what is in it.
	const slash = query.lastIndexOf("/");
	const base = slash >= 0 ? query.slice(0, slash + 1) : "";
	const scoped = base !== "" && entries.some((e) => e.path === base);
	const within = scoped ? entries.filter((e) => e.path.startsWith(base) && e.path !== base) : entries;
	const rest = scoped ? query.slice(slash + 1) : query;
	const local = (e: FileSuggestion) => (scoped ? e.path.slice(base.length) : e.path);
	if (!rest) return within.filter((e) => depth(local(e)) === 1).sort(byPlace);
	const scored: { entry: FileSuggestion; score: number }[] = [];
	const unscored: FileSuggestion[] = [];
	for (const entry of within) {
		const score = scoreEntry(local(entry), rest, entry.dir);
		if (score > 0) scored.push({ entry, score });
		else unscored.push(entry);
	}
	scored.sort((a, b) => b.score - a.score || byPlace(a.entry, b.entry));
	return [...scored.map((s) => s.entry), ...fuzzyFilter(unscored, rest, local)];
}
