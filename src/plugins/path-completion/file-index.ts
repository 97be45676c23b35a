/**
 * The session directory's files for `@` and Tab, as pi's fd finds them: hidden files included, `.git` never,
 * and what `.gitignore` ignores left out (every `.gitignore` on the way, `.git/info/exclude` and the global
 * excludes: git itself decides, through `git ls-files`). Outside a git work tree there is nothing to honour,
 * as with fd, and a bounded `find` lists the directory without the usual heavy folders. One walk runs on the
 * session's machine (this one or an SSH machine) through its Environment, and its result is kept for a short
 * while per directory: requests in between answer from it, the next one after walks again.
 */
import type { Environment } from "../../server/plugin.ts";
import type { FileSuggestion } from "./contract.ts";

/** The walk stops after this many entries, or this much listing: the index is then partial. */
export const MAX_WALK = 20_000;
const MAX_LISTING = 4 * 1024 * 1024;
/** How long a walk's result is fresh: a request after that starts the next walk (and still answers from this one). */
export const FRESH_MS = 2_000;
/** Directories the walk outside git never enters (git's own, and the ones a .gitignore would leave out). */
export const SKIPPED = [".git", "node_modules", ".hg", ".svn", "dist", "build", ".next", "target", ".venv"];

export interface FileIndex {
	/** Files and the folders above them (`dir/`), relative to the session directory. */
	readonly entries: readonly FileSuggestion[];
	/** What git ignores here (folders as `dir/`): Tab leaves these out too. Empty outside git. */
	readonly ignored: ReadonlySet<string>;
	/** The walk stopped at its bound: some files are missing. */
	readonly truncated: boolean;
}

/** One walk of a directory on a machine. */
export type Walker = (env: Environment, cwd: string) => Promise<FileIndex>;

const prune = SKIPPED.map((name) => `-name '${name}'`).join(" -o ");
/** One command for both machines: git's view inside a work tree, a pruned `find` outside. NUL-separated. */
const WALK_COMMAND = `{ if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
printf 'git\\0'
git ls-files -z --cached --others --exclude-standard 2>/dev/null
printf '\\0'
git ls-files -z --others --ignored --exclude-standard --directory 2>/dev/null
else
printf 'find\\0'
find . -mindepth 1 \\( ${prune} \\) -prune -o -type d -exec printf '%s/\\0' {} + -o -exec printf '%s\\0' {} + 2>/dev/null
printf '\\0'
fi; } | head -c ${MAX_LISTING}`;

/**
 * A listing's records: the files (folders derived from their paths, or listed with a slash), then after an
 * empty record what git ignores. `cut`: the listing reached its byte bound, so its last record is partial.
 */
export function readListing(listing: string, cut: boolean, maxEntries = MAX_WALK): FileIndex {
	const records = listing.split("\0");
	const mode = records.shift();
	// The last record is what follows the final NUL: nothing, or the part of a name `head -c` left.
	records.pop();
	const gap = records.indexOf("");
	const listed = gap < 0 ? records : records.slice(0, gap);
	const ignored = new Set(mode === "git" && gap >= 0 ? records.slice(gap + 1).filter(Boolean) : []);
	const entries: FileSuggestion[] = [];
	const folders = new Set<string>();
	const addFolders = (path: string) => {
		for (let at = path.indexOf("/"); at > 0 && at < path.length - 1; at = path.indexOf("/", at + 1)) {
			const folder = path.slice(0, at + 1);
			if (folders.has(folder)) continue;
			folders.add(folder);
			entries.push({ path: folder, dir: true });
		}
	};
	// A cut among the ignored entries leaves the files whole.
	let truncated = cut && gap < 0;
	for (const record of listed) {
		if (entries.length >= maxEntries) {
			truncated = true;
			break;
		}
		const path = record.startsWith("./") ? record.slice(2) : record;
		if (!path || path === ".git" || path.startsWith(".git/") || path.includes("/.git/")) continue;
		addFolders(path);
		if (path.endsWith("/")) {
			if (!folders.has(path)) entries.push({ path, dir: true });
			folders.add(path);
		} else entries.push({ path, dir: false });
	}
	return { entries, ignored, truncated };
}

/** The walk on the session's machine, through its Environment (this device's or an SSH machine's). */
export async function walkFiles(env: Environment, cwd: string, maxEntries = MAX_WALK): Promise<FileIndex> {
	const chunks: Uint8Array[] = [];
	const end = await env.exec({ command: WALK_COMMAND, cwd, timeoutSeconds: 10, onData: (chunk) => chunks.push(chunk) });
	const listing = Buffer.concat(chunks);
	// A walk stopped by its time bound lists only part of the directory, as one cut by its byte bound.
	return readListing(listing.toString("utf8"), listing.length >= MAX_LISTING || end.ended !== "exit", maxEntries);
}

/** `path` (relative, a folder with its slash) is ignored by git, itself or through a folder above it, or is `.git`. */
export function isIgnored(index: FileIndex, path: string): boolean {
	if (path === ".git/" || path === ".git" || path.startsWith(".git/")) return true;
	if (index.ignored.has(path)) return true;
	for (let at = path.indexOf("/"); at > 0 && at < path.length - 1; at = path.indexOf("/", at + 1)) {
		if (index.ignored.has(path.slice(0, at + 1))) return true;
	}
	return false;
}

export interface FileIndexCacheOptions {
	readonly walk?: Walker;
	/** The clock that ages a walk (injected by tests). */
	readonly now?: () => number;
	readonly freshMs?: number;
	/** How many directories are kept at most (the oldest goes first). */
	readonly size?: number;
}

interface Kept {
	/** The last walk's result: what requests get, fresh or not. */
	index: FileIndex;
	/** When that walk ended. */
	done: number;
	/** The walk running now to replace it. */
	refreshing?: Promise<FileIndex>;
}

/**
 * The walks, kept per machine and directory. The first request waits for its walk; later ones answer at once
 * from the last walk, and one that finds it older than `freshMs` starts the next walk, whose result answers the
 * requests after it (so a new file shows within a request or two, and typing never waits for a walk again).
 */
export class FileIndexCache {
	readonly #walk: Walker;
	readonly #now: () => number;
	readonly #freshMs: number;
	readonly #size: number;
	readonly #kept = new Map<string, Kept>();
	/** First walks of directories nothing is kept for yet, shared by the requests that wait for them. */
	readonly #first = new Map<string, Promise<FileIndex>>();

	constructor(options: FileIndexCacheOptions = {}) {
		this.#walk = options.walk ?? walkFiles;
		this.#now = options.now ?? Date.now;
		this.#freshMs = options.freshMs ?? FRESH_MS;
		this.#size = options.size ?? 64;
	}

	get(env: Environment, cwd: string): Promise<FileIndex> {
		const key = `${env.name}\0${cwd}`;
		const kept = this.#kept.get(key);
		if (!kept) return this.#firstWalk(key, env, cwd);
		if (!kept.refreshing && this.#now() - kept.done >= this.#freshMs) {
			kept.refreshing = this.#walk(env, cwd);
			kept.refreshing.then(
				(index) => this.#keep(key, index),
				// A failed walk changes nothing: the next stale request tries again.
				() => {
					kept.refreshing = undefined;
				},
			);
		}
		return Promise.resolve(kept.index);
	}

	#firstWalk(key: string, env: Environment, cwd: string): Promise<FileIndex> {
		const running = this.#first.get(key);
		if (running) return running;
		const walk = this.#walk(env, cwd).then(
			(index) => {
				this.#first.delete(key);
				this.#keep(key, index);
				return index;
			},
			(error: unknown) => {
				// A failed walk is not kept: the next request tries again.
				this.#first.delete(key);
				throw error;
			},
		);
		this.#first.set(key, walk);
		return walk;
	}

	#keep(key: string, index: FileIndex): void {
		this.#kept.delete(key);
		this.#kept.set(key, { index, done: this.#now() });
		if (this.#kept.size > this.#size) this.#kept.delete(this.#kept.keys().next().value as string);
	}
}
