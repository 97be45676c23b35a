/**
 * The workspace of a session on another machine (an SSH environment): the same listings, pages, git status and
 * diffs, and search, each one command there through the session's environment. Paths are confined as here: a
 * typed path is checked lexically, then its real path on the machine must lie inside the session's directory.
 */
import { posix } from "node:path";
import { ProtocolError } from "../../protocol/codes.ts";
import { EnvConnectionError, type Environment, shellQuote } from "../../server/plugin.ts";
import {
	gitDiff,
	gitGrepArgv,
	gitStatus,
	looksBinary,
	MAX_SCAN_BYTES,
	markIgnored,
	parseMatches,
	type Runner,
} from "./backend.ts";
import {
	type ChangeEntry,
	type DiffResult,
	type GrepResult,
	type ListEntry,
	type ListResult,
	MAX_ENTRIES,
	MAX_LINE_CHARS,
	MAX_MATCHES,
	type ReadResult,
	type StatusResult,
} from "./contract.ts";
import { GIT } from "./run.ts";

/** How much of a file's start tells whether it is binary (as here: a NUL, or not UTF-8). */
const BINARY_PROBE_BYTES = 8192;
const GREP_TIMEOUT_MS = 5_000;
const SKIPPED = [".git", "node_modules", ".hg", ".svn", "dist", "build", ".next", "target", ".venv"];

/** The read script's output: the file's size, its first bytes in hex, the page's lines, then "start more". */
export function remotePage(path: string, out: Buffer): ReadResult {
	const sizeEnd = out.indexOf(10);
	const probeEnd = out.indexOf(10, sizeEnd + 1);
	if (sizeEnd < 0 || probeEnd < 0)
		throw new ProtocolError("unavailable", `${path}: the machine's answer was cut short`);
	const size = Number(out.subarray(0, sizeEnd).toString("latin1")) || 0;
	const probe = Buffer.from(out.subarray(sizeEnd + 1, probeEnd).toString("latin1"), "hex");
	if (looksBinary(probe)) return { path, size, binary: true, line: null, lines: [], more: false };
	const rows = new TextDecoder().decode(out.subarray(probeEnd + 1)).split("\n");
	if (rows.at(-1) === "") rows.pop();
	const trailer = /^(\d+) ([01])$/.exec(rows.pop() ?? "");
	if (!trailer) throw new ProtocolError("unavailable", `${path}: the machine's answer was cut short`);
	const start = Number(trailer[1]);
	const lines = rows.map((row) => row.replace(/\r$/, "").slice(0, MAX_LINE_CHARS));
	// A file longer than is looked in goes on past the page, as here.
	const more = trailer[2] === "1" || size > MAX_SCAN_BYTES;
	return { path, size, binary: false, line: start > 0 ? start : null, lines, more };
}

function notThere(path: string): ProtocolError {
	return new ProtocolError("not_found", `${path || "."} is not in the session's directory`);
}

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

/** Programs run by argv on the machine (stdout only), bounded in output and time like `run`. */
export function remoteRunner(env: Environment): Runner {
	return async (argv, options) => {
		const words = argv.map(shellQuote).join(" ");
		// git reads NUL-separated names: each is a word of printf (a shell word cannot hold a NUL).
		const input =
			options.input === undefined ? "" : `printf '%s\\0' ${options.input.split("\0").map(shellQuote).join(" ")} | `;
		const command = `export GIT_OPTIONAL_LOCKS=0 GIT_TERMINAL_PROMPT=0 LC_ALL=C; ${input}${words} 2>/dev/null`;
		const chunks: Uint8Array[] = [];
		let bytes = 0;
		let full = false;
		const stop = new AbortController();
		const end = await env.exec({
			command,
			cwd: options.cwd,
			signal: stop.signal,
			timeoutSeconds: Math.max(1, Math.ceil(options.timeoutMs / 1000)),
			onData: (chunk) => {
				if (full) return;
				const room = options.maxBytes - bytes;
				chunks.push(chunk.byteLength > room ? chunk.subarray(0, room) : chunk);
				bytes += Math.min(room, chunk.byteLength);
				if (bytes >= options.maxBytes) {
					full = true;
					stop.abort();
				}
			},
		});
		const out = new TextDecoder().decode(Buffer.concat(chunks));
		const timedOut = end.ended === "timeout";
		return { code: full || end.ended !== "exit" ? null : end.exitCode, out, full, timedOut };
	};
}

/** Runs a script on the machine and returns its stdout bytes; a non-zero exit is `null`. */
async function script(env: Environment, cwd: string, body: string, words: readonly string[]): Promise<Buffer | null> {
	const chunks: Uint8Array[] = [];
	const end = await env.exec({
		command: `sh -c ${shellQuote(body)} p2 ${words.map(shellQuote).join(" ")} 2>/dev/null`,
		cwd,
		onData: (chunk) => chunks.push(chunk),
	});
	return end.exitCode === 0 ? Buffer.concat(chunks) : null;
}

/** A typed path (relative, never leaving lexically), and the real path it names inside the session's directory. */
export async function confineRemote(
	env: Environment,
	root: string,
	typed: string,
): Promise<{ real: string; rel: string } | null> {
	if (typed.includes("\0") || posix.isAbsolute(typed) || typed.startsWith("~")) return null;
	const rel = posix.normalize(typed || ".");
	if (rel === ".." || rel.startsWith("../")) return null;
	const out = await script(
		env,
		root,
		`root=$(pwd -P) || exit 3
t=$root/$1
[ -e "$t" ] || exit 4
real=$(readlink -f -- "$t") || exit 4
printf '%s\\0%s' "$root" "$real"`,
		[rel],
	);
	if (!out) return null;
	const [realRoot = "", real = ""] = out.toString("utf8").split("\0");
	if (!realRoot || !(real === realRoot || real.startsWith(`${realRoot}/`))) return null;
	return { real, rel: rel === "." ? "" : rel };
}

export class RemoteWorkspace {
	readonly #env: Environment;
	readonly #run: Runner;

	constructor(env: Environment) {
		this.#env = env;
		this.#run = remoteRunner(env);
	}

	list(root: string, path: string, hidden: boolean): Promise<ListResult> {
		return reached(async () => {
			const dir = await confineRemote(this.#env, root, path);
			if (!dir) throw notThere(path);
			const out = await script(
				this.#env,
				root,
				`cd -- "$1" || exit 3
find . -mindepth 1 -maxdepth 1 -printf '%y\\t%s\\t%f\\0' 2>/dev/null && exit 0
for f in * .[!.]* ..?*; do
if [ -L "$f" ]; then printf 'l\\t0\\t%s\\0' "$f"; elif [ -d "$f" ]; then printf 'd\\t0\\t%s\\0' "$f"; elif [ -e "$f" ]; then printf 'f\\t0\\t%s\\0' "$f"; fi
done`,
				[dir.real],
			);
			if (!out) throw new ProtocolError("bad_args", `${dir.rel || "."} is not a folder`);
			const entries: ListEntry[] = [];
			for (const item of out.toString("utf8").split("\0")) {
				const [kind = "", size = "0", ...rest] = item.split("\t");
				const name = rest.join("\t");
				if (!name || (!hidden && name.startsWith("."))) continue;
				entries.push({
					name,
					dir: kind === "d",
					link: kind === "l",
					size: kind === "f" ? Number(size) || 0 : 0,
					ignored: false,
				});
			}
			entries.sort((a, b) => Number(b.dir) - Number(a.dir) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
			const shown = entries.slice(0, MAX_ENTRIES);
			await markIgnored(dir.real, shown, this.#run);
			return { path: dir.rel, entries: shown, truncated: entries.length > shown.length };
		});
	}

	/**
	 * A page of a file, cut out on the machine: only the page's lines travel (with the file's size and its first
	 * 8 KiB, hex-encoded, to tell a binary file). The search for `find` runs there too, in awk's C locale: letters
	 * outside ASCII match only in their own case.
	 */
	read(root: string, path: string, line: number, limit: number, find?: string): Promise<ReadResult> {
		return reached(async () => {
			const file = await confineRemote(this.#env, root, path);
			if (!file) throw notThere(path);
			const out = await script(
				this.#env,
				root,
				`[ -f "$1" ] && [ -r "$1" ] || exit 3
wc -c < "$1" | tr -d ' \\n'
printf '\\n'
head -c ${BINARY_PROBE_BYTES} -- "$1" | od -An -v -tx1 | tr -d ' \\n'
printf '\\n'
head -c ${MAX_SCAN_BYTES} -- "$1" | P2_FIND="$4" LC_ALL=C awk -v from="$2" -v limit="$3" '
BEGIN { needle = ENVIRON["P2_FIND"]; start = needle == "" ? from : 0 }
!start && NR >= from && index(tolower($0), needle) { start = NR }
start && NR >= start { if (shown == limit) { more = 1; exit } print substr($0, 1, ${MAX_LINE_CHARS * 4}); shown++ }
END { print start + 0, more + 0 }'`,
				[file.real, String(line), String(limit), find?.toLowerCase() ?? ""],
			);
			if (!out) throw new ProtocolError("bad_args", `${file.rel} is not a file`);
			return remotePage(file.rel, out);
		});
	}

	status(root: string): Promise<StatusResult> {
		return reached(() => gitStatus(root, this.#run));
	}

	diff(root: string, path: string, kind: ChangeEntry["kind"]): Promise<DiffResult> {
		const lexical = (_root: string, typed: string) => {
			if (posix.isAbsolute(typed) || typed.startsWith("~")) return null;
			const rel = posix.normalize(typed);
			return rel === ".." || rel.startsWith("../") ? null : { rel };
		};
		return reached(() => gitDiff(root, path, kind, this.#run, lexical));
	}

	/** git grep in a repository, else grep -r (hidden and build folders skipped); literal and case-insensitive. */
	grep(root: string, text: string): Promise<GrepResult> {
		return reached(async () => {
			const bound = { cwd: root, maxBytes: (MAX_MATCHES + 1) * (MAX_LINE_CHARS + 300), timeoutMs: GREP_TIMEOUT_MS };
			const finish = (out: string, engine: "git" | "walk", cutShort: boolean, format: "git" | "rg"): GrepResult => {
				const matches = parseMatches(out, format);
				return { matches: matches.slice(0, MAX_MATCHES), truncated: cutShort || matches.length > MAX_MATCHES, engine };
			};
			const inRepo = await this.#run([...GIT, "rev-parse", "--show-prefix"], { ...bound, maxBytes: 8192 });
			if (inRepo.code === 0) {
				const ran = await this.#run(gitGrepArgv(text), bound);
				if (ran.code === null || ran.code <= 1) return finish(ran.out, "git", ran.code === null, "git");
			}
			// `.?*`, not `.*`: grep also skips a starting folder that matches, and `.` would.
			const excluded = [...SKIPPED, ".?*"].map((d) => `--exclude-dir=${d}`);
			const ran = await this.#run(
				["grep", "-r", "-n", "-I", "-i", "-F", "-Z", ...excluded, "-e", text, "--", "."],
				bound,
			);
			return finish(ran.out, "walk", ran.code === null, "rg");
		});
	}
}
