/**
 * The session's directory as the workspace object serves it: listings, pages of files, git's status and diffs,
 * and a search, on the session's machine (this device or an SSH machine) through its Environment, the same way
 * on both. Every path is confined to the directory (confine.ts) before anything is read; git, ripgrep and grep
 * do the heavy parts, bounded in output and time.
 */
import { posix } from "node:path";
import { ProtocolError } from "../../protocol/codes.ts";
import { EnvConnectionError, type Environment, type RunOptions } from "../../server/plugin.ts";
import { confine, lexical } from "./confine.ts";
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
import { readPage } from "./page.ts";

/** Git without pagers, fsmonitor hooks, quoted names or colors. */
export const GIT = [
	"git",
	"--no-pager",
	"-c",
	"core.quotepath=off",
	"-c",
	"core.fsmonitor=false",
	"-c",
	"color.ui=never",
] as const;

const GIT_TIMEOUT_MS = 10_000;
/** A search gives up after this long and says so. */
export const GREP_TIMEOUT_MS = 5_000;
/** Outside a repository grep skips these folders (and hidden ones). */
const SKIPPED = [".git", "node_modules", ".hg", ".svn", "dist", "build", ".next", "target", ".venv"];

function notThere(path: string): ProtocolError {
	return new ProtocolError("not_found", `${path || "."} is not in the session's directory`);
}

const cut = (text: string) => (text.length > MAX_LINE_CHARS ? text.slice(0, MAX_LINE_CHARS) : text);

/** The machine's failures as the person reads them (never the host's "internal"). */
async function reached<T>(work: () => Promise<T>): Promise<T> {
	try {
		return await work();
	} catch (error) {
		if (error instanceof EnvConnectionError) throw new ProtocolError("unavailable", error.message);
		if (error instanceof ProtocolError) throw error;
		throw new ProtocolError("unavailable", error instanceof Error ? error.message.slice(0, 300) : String(error));
	}
}

/** `path\0line\0text` (git grep -z) or `path\0line:text` (rg --null, grep -Z), one match a line. */
export function parseMatches(out: string, format: "git" | "rg"): GrepMatch[] {
	const matches: GrepMatch[] = [];
	for (const row of out.split("\n")) {
		if (!row) continue;
		const nul = row.indexOf("\0");
		if (nul < 0) continue;
		const path = row.slice(0, nul).replace(/^\.\//, "");
		const rest = row.slice(nul + 1);
		const sepAt = format === "git" ? rest.indexOf("\0") : rest.indexOf(":");
		const line = Number(rest.slice(0, sepAt));
		if (sepAt < 0 || !Number.isInteger(line) || line < 1) continue;
		matches.push({ path, line, text: cut(rest.slice(sepAt + 1).replace(/\r$/, "")) });
	}
	return matches;
}

/** git grep over the working tree and untracked files (ignored ones left out): literal, case-insensitive. */
function gitGrepArgv(text: string): string[] {
	return [...GIT, "grep", "--no-color", "-z", "-n", "-I", "-i", "-F", "--untracked", "--exclude-standard", "-e", text];
}

export class SessionDirectory {
	readonly #env: Environment;

	constructor(env: Environment) {
		this.#env = env;
	}

	/** The directory's entries: folders first, each file with its size, symbolic links named and never followed. */
	list(root: string, path: string, hidden: boolean): Promise<ListResult> {
		return reached(async () => {
			const dir = await confine(this.#env, root, path);
			if (!dir) throw notThere(path);
			const listed = await this.#env.listDirectory(dir.real, { sizes: true }).catch((error: unknown) => {
				if (error instanceof EnvConnectionError) throw error;
				throw new ProtocolError("bad_args", `${dir.rel || "."} is not a folder`);
			});
			const entries: ListEntry[] = listed
				.filter((e) => hidden || !e.name.startsWith("."))
				.map((e) => ({ name: e.name, dir: e.dir, link: e.link, size: e.size, ignored: false }));
			entries.sort((a, b) => Number(b.dir) - Number(a.dir) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
			const shown = entries.slice(0, MAX_ENTRIES);
			await this.#markIgnored(dir.real, shown);
			return { path: dir.rel, entries: shown, truncated: entries.length > shown.length };
		});
	}

	/** A page of a file (page.ts). */
	read(root: string, path: string, line: number, limit: number, find?: string): Promise<ReadResult> {
		return reached(async () => {
			const file = await confine(this.#env, root, path);
			if (!file) throw notThere(path);
			const page = await readPage(this.#env, root, file, line, limit, find);
			if (!page) throw new ProtocolError("bad_args", `${file.rel} is not a file`);
			return page;
		});
	}

	/** git's status of the session's directory: what is staged, changed and new, as paths relative to it. */
	status(root: string): Promise<StatusResult> {
		return reached(async () => {
			const prefix = await this.#repoPrefix(root);
			if (prefix === null) return { repo: false, branch: null, changes: [], truncated: false };
			const ran = await this.#env.run(
				[...GIT, "status", "--porcelain=v1", "-z", "--branch", "--untracked-files=normal", "--", "."],
				{ cwd: root, maxBytes: 4 * 1024 * 1024, timeoutMs: GIT_TIMEOUT_MS },
			);
			return parseStatus(ran.out, prefix, ran.full);
		});
	}

	/** One change's diff, as git writes it (its hunks), cut at MAX_DIFF_CHARS. */
	diff(root: string, path: string, kind: ChangeEntry["kind"]): Promise<DiffResult> {
		return reached(async () => {
			if (path.includes("\0") || path.startsWith("-")) throw notThere(path);
			// A deleted file is not there: it is checked lexically, and git itself is confined to the directory by `--`.
			const file = await confine(this.#env, root, path);
			if (!file && kind === "untracked") throw notThere(path);
			const target = file?.rel ?? lexical(path);
			if (target === null) throw notThere(path);
			const base = [...GIT, "diff", "--no-color", "--no-ext-diff", "--no-textconv", "-U3"];
			const argv =
				kind === "untracked"
					? [...base, "--no-index", "--", "/dev/null", target]
					: [...base, ...(kind === "staged" ? ["--cached"] : []), "--", target];
			const ran = await this.#env.run(argv, { cwd: root, maxBytes: MAX_DIFF_CHARS + 1, timeoutMs: GIT_TIMEOUT_MS });
			const full = ran.out.length > MAX_DIFF_CHARS || ran.full;
			const diff = ran.out.slice(0, MAX_DIFF_CHARS);
			const binary = /^Binary files .* differ$/m.test(diff);
			// The header (diff --git, index, ---, +++) names paths the viewer already shows: only the hunks are kept.
			const hunks = diff.indexOf("\n@@");
			return { diff: binary ? "" : hunks >= 0 ? diff.slice(hunks + 1) : "", binary, truncated: full };
		});
	}

	/**
	 * A literal, case-insensitive search of the session's directory that respects .gitignore: ripgrep where the
	 * machine has it, else git grep (tracked and untracked files) in a repository, else grep -r with hidden and
	 * build folders and hidden files skipped. Bounded in matches, output and time.
	 */
	grep(root: string, text: string, timeoutMs = GREP_TIMEOUT_MS): Promise<GrepResult> {
		return reached(async () => {
			const bound: RunOptions = { cwd: root, maxBytes: (MAX_MATCHES + 1) * (MAX_LINE_CHARS + 300), timeoutMs };
			const finish = (out: string, engine: GrepResult["engine"], cutShort: boolean): GrepResult => {
				const matches = parseMatches(out, engine === "git" ? "git" : "rg");
				return { matches: matches.slice(0, MAX_MATCHES), truncated: cutShort || matches.length > MAX_MATCHES, engine };
			};
			const rg = await this.#env.run(
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
			if (rg.code !== null && rg.code <= 1) return finish(rg.out, "rg", false);
			if (rg.code === null) return finish(rg.out, "rg", true);
			if ((await this.#repoPrefix(root)) !== null) {
				const ran = await this.#env.run([...gitGrepArgv(text), "--", "."], bound);
				if (ran.code === null || ran.code <= 1) return finish(ran.out, "git", ran.code === null);
			}
			// `.?*`, not `.*`: grep also skips a starting folder that matches, and `.` would. Hidden files too.
			const excluded = [...[...SKIPPED, ".?*"].map((d) => `--exclude-dir=${d}`), "--exclude=.*"];
			const ran = await this.#env.run(
				["grep", "-r", "-n", "-I", "-i", "-F", "-Z", ...excluded, "-e", text, "--", "."],
				bound,
			);
			return finish(ran.out, "walk", ran.code === null);
		});
	}

	/** Where `cwd` is in its repository (`sub/dir/`), or null outside one. */
	async #repoPrefix(cwd: string): Promise<string | null> {
		const ran = await this.#env.run([...GIT, "rev-parse", "--show-prefix"], {
			cwd,
			maxBytes: 8192,
			timeoutMs: GIT_TIMEOUT_MS,
		});
		return ran.code === 0 ? ran.out.trim() : null;
	}

	/** Marks what git ignores (one `git check-ignore` for the whole listing); nothing outside a repository. */
	async #markIgnored(dir: string, entries: ListEntry[]): Promise<void> {
		if (!entries.length) return;
		const input = entries.map((e) => e.name).join("\0");
		const ran = await this.#env.run([...GIT, "check-ignore", "-z", "--stdin"], {
			cwd: dir,
			input,
			maxBytes: input.length + 1024,
			timeoutMs: GIT_TIMEOUT_MS,
		});
		if (ran.code !== 0) return;
		const ignored = new Set(ran.out.split("\0"));
		for (const e of entries) if (ignored.has(e.name)) e.ignored = true;
	}
}

/** `git status --porcelain=v1 -z --branch`, its paths relative to the session's directory (`prefix` in the repository). */
export function parseStatus(out: string, prefix: string, cutShort: boolean): StatusResult {
	const fields = out.split("\0");
	let branch: string | null = null;
	const changes: ChangeEntry[] = [];
	const local = (p: string) => (p.startsWith(prefix) ? p.slice(prefix.length) : posix.relative(prefix, p));
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
	return { repo: true, branch, changes, truncated: records > MAX_CHANGES || cutShort };
}
