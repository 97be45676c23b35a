/**
 * The session's directory as the workspace object serves it: listings, pages of files, git's status and diffs,
 * and a search. Every path is confined to the directory (confine.ts) before anything is read; git and ripgrep
 * do the heavy parts where they are installed, and p2's own bounded walk searches when neither can.
 */
import {
	closeSync,
	type Dirent,
	fstatSync,
	lstatSync,
	openSync,
	readdirSync,
	readFileSync,
	readSync,
	statSync,
} from "node:fs";
import { join, relative, sep } from "node:path";
import { ProtocolError } from "../../protocol/codes.ts";
import { confine } from "./confine.ts";
import {
	type ChangeEntry,
	type DiffResult,
	type GrepMatch,
	type GrepResult,
	type ListEntry,
	type ListResult,
	MAX_CHANGES,
	MAX_DIFF_CHARS,
	MAX_ENTRIES,
	MAX_LINE_CHARS,
	MAX_MATCHES,
	type ReadResult,
	type StatusResult,
} from "./contract.ts";
import { GIT, installed, type Ran, type RunOptions, run } from "./run.ts";

/** How a program is run in the session's directory: here (`run`), or on the session's machine over SSH. */
export type Runner = (argv: readonly string[], options: RunOptions) => Promise<Ran>;

const GIT_TIMEOUT_MS = 10_000;
/** A search gives up after this long and says so. */
export const GREP_TIMEOUT_MS = 5_000;
/** The viewer reads at most this far into a file looking for a page or a match. */
export const MAX_SCAN_BYTES = 256 * 1024 * 1024;
const CHUNK = 64 * 1024;
/** p2's own search skips these folders and files larger than this. */
const SKIPPED = new Set([".git", "node_modules", ".hg", ".svn", "dist", "build", ".next", "target", ".venv"]);
const MAX_WALK_FILE = 2 * 1024 * 1024;
const MAX_WALK_ENTRIES = 100_000;

function notThere(path: string): ProtocolError {
	return new ProtocolError("not_found", `${path || "."} is not in the session's directory`);
}

const cut = (text: string) => (text.length > MAX_LINE_CHARS ? text.slice(0, MAX_LINE_CHARS) : text);

/** The directory's entries: folders first, each with its size, symbolic links named and never followed. */
export async function listDir(root: string, path: string, hidden: boolean): Promise<ListResult> {
	const dir = confine(root, path);
	if (!dir) throw notThere(path);
	let dirents: Dirent[];
	try {
		dirents = readdirSync(dir.real, { withFileTypes: true });
	} catch {
		throw new ProtocolError("bad_args", `${dir.rel || "."} is not a folder`);
	}
	const entries: ListEntry[] = [];
	for (const d of dirents) {
		if (!hidden && d.name.startsWith(".")) continue;
		entries.push({ name: d.name, dir: d.isDirectory(), link: d.isSymbolicLink(), size: 0, ignored: false });
	}
	entries.sort((a, b) => Number(b.dir) - Number(a.dir) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
	const shown = entries.slice(0, MAX_ENTRIES);
	// Sizes only for what is shown: a huge folder costs one stat per shown file, not per file in it.
	for (const e of shown) {
		if (e.dir || e.link) continue;
		try {
			e.size = lstatSync(join(dir.real, e.name)).size;
		} catch {
			// Gone since the listing: size unknown.
		}
	}
	await markIgnored(dir.real, shown);
	return { path: dir.rel, entries: shown, truncated: entries.length > shown.length };
}

/** Marks what git ignores (one `git check-ignore` for the whole listing); nothing outside a repository. */
export async function markIgnored(dir: string, entries: ListEntry[], runner: Runner = run): Promise<void> {
	if (!entries.length) return;
	const input = entries.map((e) => e.name).join("\0");
	const ran = await runner([...GIT, "check-ignore", "-z", "--stdin"], {
		cwd: dir,
		input,
		maxBytes: input.length + 1024,
		timeoutMs: GIT_TIMEOUT_MS,
	});
	if (ran.code !== 0) return;
	const ignored = new Set(ran.out.split("\0"));
	for (const e of entries) if (ignored.has(e.name)) e.ignored = true;
}

/** Binary: a NUL or invalid UTF-8 in the first bytes. */
export function looksBinary(head: Uint8Array): boolean {
	if (head.includes(0)) return true;
	try {
		// The last bytes may be a character cut in half: leave them out.
		new TextDecoder("utf-8", { fatal: true }).decode(head.subarray(0, Math.max(0, head.byteLength - 4)));
		return false;
	} catch {
		return true;
	}
}

/**
 * A page of a file: `limit` lines from `line`, or from the first line at or after it that contains `find`. The
 * file is read in chunks up to the page (never whole), lines are cut at MAX_LINE_CHARS, a binary file is named.
 */
export function readPage(root: string, path: string, line: number, limit: number, find?: string): ReadResult {
	const file = confine(root, path);
	if (!file) throw notThere(path);
	let fd: number;
	try {
		fd = openSync(file.real, "r");
	} catch {
		throw notThere(path);
	}
	try {
		const stat = fstatSync(fd);
		if (!stat.isFile()) throw new ProtocolError("bad_args", `${file.rel} is not a file`);
		const buffer = Buffer.alloc(CHUNK);
		const decoder = new TextDecoder();
		const needle = find?.toLowerCase();
		const lines: string[] = [];
		let at = 0;
		let number = 1;
		let partial = "";
		let start: number | null = needle ? null : line;
		let more = false;
		const take = (text: string): boolean => {
			if (start === null && number >= line && needle && text.toLowerCase().includes(needle)) start = number;
			if (start !== null && number >= start) {
				if (lines.length === limit) {
					more = true;
					return false;
				}
				lines.push(cut(text));
			}
			number++;
			return true;
		};
		let first = true;
		reading: while (at < MAX_SCAN_BYTES) {
			const n = readSync(fd, buffer, 0, CHUNK, at);
			if (n === 0) break;
			if (first && looksBinary(buffer.subarray(0, Math.min(n, 8192)))) {
				return { path: file.rel, size: stat.size, binary: true, line: null, lines: [], more: false };
			}
			first = false;
			at += n;
			const text = partial + decoder.decode(buffer.subarray(0, n), { stream: true });
			const rows = text.split("\n");
			partial = rows.pop() ?? "";
			// One very long line is kept only as far as it is shown.
			if (partial.length > MAX_LINE_CHARS * 4) partial = partial.slice(0, MAX_LINE_CHARS * 4);
			for (const row of rows) if (!take(row.replace(/\r$/, ""))) break reading;
		}
		if (!more && (partial || at >= MAX_SCAN_BYTES)) {
			if (at >= MAX_SCAN_BYTES) more = true;
			else take(partial + decoder.decode());
		}
		return { path: file.rel, size: stat.size, binary: false, line: start, lines, more };
	} finally {
		closeSync(fd);
	}
}

/** Where `cwd` is in its repository (`sub/dir/`), or null outside one. */
async function repoPrefix(cwd: string, runner: Runner = run): Promise<string | null> {
	const ran = await runner([...GIT, "rev-parse", "--show-prefix"], { cwd, maxBytes: 8192, timeoutMs: GIT_TIMEOUT_MS });
	return ran.code === 0 ? ran.out.trim() : null;
}

/** git's status of the session's directory: what is staged, changed and new, as paths relative to it. */
export async function gitStatus(root: string, runner: Runner = run): Promise<StatusResult> {
	const prefix = await repoPrefix(root, runner);
	if (prefix === null) return { repo: false, branch: null, changes: [], truncated: false };
	const ran = await runner(
		[...GIT, "status", "--porcelain=v1", "-z", "--branch", "--untracked-files=normal", "--", "."],
		{
			cwd: root,
			maxBytes: 4 * 1024 * 1024,
			timeoutMs: GIT_TIMEOUT_MS,
		},
	);
	const fields = ran.out.split("\0");
	let branch: string | null = null;
	const changes: ChangeEntry[] = [];
	const local = (p: string) =>
		p.startsWith(prefix) ? p.slice(prefix.length) : relative(prefix, p).split(sep).join("/");
	let records = 0;
	for (let i = 0; i < fields.length; i++) {
		const field = fields[i]!;
		if (field.startsWith("## ")) {
			const head = field.slice(3);
			branch = head.startsWith("HEAD (no branch)")
				? "detached"
				: (head
						.replace(/^No commits yet on /, "")
						.split("...")[0]
						?.trim() ?? null);
			continue;
		}
		if (field.length < 4) continue;
		const x = field[0]!;
		const y = field[1]!;
		const path = local(field.slice(3));
		let from: string | undefined;
		if (x === "R" || x === "C") from = local(fields[++i] ?? "");
		if (++records > MAX_CHANGES) break;
		if (x === "?") {
			changes.push({ path, kind: "untracked", status: "?" });
			continue;
		}
		if (x === "!") continue;
		if (x !== " ") changes.push({ path, ...(from !== undefined ? { from } : {}), kind: "staged", status: x });
		if (y !== " ") changes.push({ path, kind: "unstaged", status: y });
	}
	return { repo: true, branch, changes, truncated: records > MAX_CHANGES || ran.full };
}

/** One change's diff, as git writes it (its hunks), cut at MAX_DIFF_CHARS. */
export async function gitDiff(
	root: string,
	path: string,
	kind: ChangeEntry["kind"],
	runner: Runner = run,
	/** Here: the path confined on disk. On another machine only the lexical check below applies. */
	confined: (root: string, path: string) => { rel: string } | null = confine,
): Promise<DiffResult> {
	if (path.includes("\0") || path.startsWith("-")) throw notThere(path);
	// A deleted file is not on disk: it is checked lexically, and git itself is confined to the directory by `--`.
	const file = confined(root, path);
	if (!file && kind === "untracked") throw notThere(path);
	if (!file && (path.startsWith("/") || path.split("/").includes(".."))) throw notThere(path);
	const target = file?.rel ?? path;
	const base = [...GIT, "diff", "--no-color", "--no-ext-diff", "--no-textconv", "-U3"];
	const argv =
		kind === "untracked"
			? [...base, "--no-index", "--", "/dev/null", target]
			: [...base, ...(kind === "staged" ? ["--cached"] : []), "--", target];
	const ran = await runner(argv, { cwd: root, maxBytes: MAX_DIFF_CHARS + 1, timeoutMs: GIT_TIMEOUT_MS });
	const full = ran.out.length > MAX_DIFF_CHARS || ran.full;
	const diff = ran.out.slice(0, MAX_DIFF_CHARS);
	const binary = /^Binary files .* differ$/m.test(diff);
	// The header (diff --git, index, ---, +++) names paths the viewer already shows: only the hunks are kept.
	const hunks = diff.indexOf("\n@@");
	return { diff: binary ? "" : hunks >= 0 ? diff.slice(hunks + 1) : "", binary, truncated: full };
}

/** `path\0line\0text` (git grep -z) or `path\0line:text` (rg --null), one match a line. */
export function parseMatches(out: string, engine: "rg" | "git"): GrepMatch[] {
	const matches: GrepMatch[] = [];
	for (const row of out.split("\n")) {
		if (!row) continue;
		const nul = row.indexOf("\0");
		if (nul < 0) continue;
		const path = row.slice(0, nul).replace(/^\.\//, "");
		const rest = row.slice(nul + 1);
		const sepAt = engine === "git" ? rest.indexOf("\0") : rest.indexOf(":");
		const line = Number(rest.slice(0, sepAt));
		if (sepAt < 0 || !Number.isInteger(line) || line < 1) continue;
		matches.push({ path, line, text: cut(rest.slice(sepAt + 1).replace(/\r$/, "")) });
	}
	return matches;
}

/** git grep over the working tree and untracked files (ignored ones left out): literal, case-insensitive. */
export function gitGrepArgv(text: string): string[] {
	return [
		...GIT,
		"grep",
		"--no-color",
		"-z",
		"-n",
		"-I",
		"-i",
		"-F",
		"--untracked",
		"--exclude-standard",
		"-e",
		text,
		"--",
		".",
	];
}

/**
 * A literal, case-insensitive search of the session's directory that respects .gitignore: ripgrep when the
 * server has it, else git grep (tracked and untracked files) in a repository, else p2's own walk. Bounded in
 * matches, output and time.
 */
export async function grep(root: string, text: string, timeoutMs = GREP_TIMEOUT_MS): Promise<GrepResult> {
	const bound = { cwd: root, maxBytes: (MAX_MATCHES + 1) * (MAX_LINE_CHARS + 300), timeoutMs };
	const finish = (matches: GrepMatch[], engine: GrepResult["engine"], cutShort: boolean): GrepResult => ({
		matches: matches.slice(0, MAX_MATCHES),
		truncated: cutShort || matches.length > MAX_MATCHES,
		engine,
	});
	if (installed("rg")) {
		const ran = await run(
			[
				"rg",
				"--null",
				"--line-number",
				"--no-heading",
				"--color=never",
				"--ignore-case",
				"--fixed-strings",
				"--no-follow",
				`--max-columns=${MAX_LINE_CHARS}`,
				"--regexp",
				text,
				"--",
				".",
			],
			bound,
		);
		if (ran.code !== null && ran.code <= 1) return finish(parseMatches(ran.out, "rg"), "rg", false);
		if (ran.code === null && (ran.full || ran.timedOut)) return finish(parseMatches(ran.out, "rg"), "rg", true);
	}
	if ((await repoPrefix(root)) !== null) {
		const ran = await run(gitGrepArgv(text), bound);
		if (ran.code !== null && ran.code <= 1) return finish(parseMatches(ran.out, "git"), "git", false);
		if (ran.code === null) return finish(parseMatches(ran.out, "git"), "git", true);
	}
	return walkGrep(root, text, timeoutMs);
}

/** p2's own search: a breadth-first walk that never follows links, skipping hidden and build folders. */
export function walkGrep(root: string, text: string, timeoutMs: number, now = Date.now): GrepResult {
	const needle = text.toLowerCase();
	const deadline = now() + timeoutMs;
	const matches: GrepMatch[] = [];
	const queue = [""];
	let seen = 0;
	let cutShort = false;
	walk: while (queue.length) {
		const rel = queue.shift()!;
		let dirents: Dirent[];
		try {
			dirents = readdirSync(join(root, rel), { withFileTypes: true });
		} catch {
			continue;
		}
		dirents.sort((a, b) => (a.name < b.name ? -1 : 1));
		for (const d of dirents) {
			if (++seen > MAX_WALK_ENTRIES || now() > deadline) {
				cutShort = true;
				break walk;
			}
			if (d.name.startsWith(".") || SKIPPED.has(d.name)) continue;
			const path = rel ? `${rel}/${d.name}` : d.name;
			if (d.isDirectory()) queue.push(path);
			if (!d.isFile()) continue;
			try {
				if (statSync(join(root, path)).size > MAX_WALK_FILE) continue;
				const head = readHead(join(root, path));
				if (!head || looksBinary(head)) continue;
			} catch {
				continue;
			}
			const content = readText(join(root, path));
			if (content === null || !content.toLowerCase().includes(needle)) continue;
			const lines = content.split("\n");
			for (let i = 0; i < lines.length; i++) {
				if (!lines[i]!.toLowerCase().includes(needle)) continue;
				matches.push({ path, line: i + 1, text: cut(lines[i]!.replace(/\r$/, "")) });
				if (matches.length > MAX_MATCHES) {
					cutShort = true;
					break walk;
				}
			}
		}
	}
	return { matches: matches.slice(0, MAX_MATCHES), truncated: cutShort, engine: "walk" };
}

function readHead(path: string): Uint8Array | null {
	let fd: number | undefined;
	try {
		fd = openSync(path, "r");
		const buffer = Buffer.alloc(8192);
		return buffer.subarray(0, readSync(fd, buffer, 0, buffer.byteLength, 0));
	} catch {
		return null;
	} finally {
		if (fd !== undefined) closeSync(fd);
	}
}

function readText(path: string): string | null {
	try {
		return readFileSync(path, "utf8");
	} catch {
		return null;
	}
}
