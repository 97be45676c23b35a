/**
 * Prompt templates and skills of a session on another machine (SSH). Their Markdown files (and the ignore files
 * beside them) are read there in one command and kept in a private folder here that mirrors their paths, so
 * the same loader finds them; every path shown, listed in the system prompt or expanded is the machine's.
 * Nothing but regular files under the expected folders is ever written from what the machine sends.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, posix } from "node:path";
import { type Environment, shellQuote } from "../../server/plugin.ts";
import type { Resources } from "./discovery.ts";

const MAX_FILE_BYTES = 1024 * 1024;
/** What one fetch brings at most, all files together. */
const MAX_TOTAL_BYTES = 8 * 1024 * 1024;
const MAX_FILES = 2000;

/** Where a remote session's resources are looked for there, as the loader here would look for them. */
function remoteScript(): string {
	return `cwd=$(pwd -P)
root=$(git rev-parse --show-toplevel 2>/dev/null || true)
printf 'H%s\\0' "$HOME"
printf 'C%s\\0' "$cwd"
[ -n "$root" ] && printf 'R%s\\0' "$root"
emit() { find "$1" -maxdepth $2 \\( -name '.git' -o -name 'node_modules' \\) -prune -o -type f \\( -name '*.md' -o -name '.gitignore' -o -name '.ignore' -o -name '.fdignore' \\) -print 2>/dev/null | head -n ${MAX_FILES} | while IFS= read -r f; do printf 'F%s\\0' "$f"; head -c ${MAX_FILE_BYTES} -- "$f" | tr -d '\\000'; printf '\\0'; done; }
[ -d "$HOME/.pi/p2/prompts" ] && emit "$HOME/.pi/p2/prompts" 1
[ -d "$HOME/.pi/agent/prompts" ] && emit "$HOME/.pi/agent/prompts" 1
[ -d "$HOME/.pi/agent/skills" ] && emit "$HOME/.pi/agent/skills" 6
[ -d "$HOME/.agents/skills" ] && emit "$HOME/.agents/skills" 6
[ -d "$cwd/.pi/prompts" ] && emit "$cwd/.pi/prompts" 1
[ -d "$cwd/.pi/skills" ] && emit "$cwd/.pi/skills" 6
d=$cwd
while :; do
[ -d "$d/.agents/skills" ] && emit "$d/.agents/skills" 6
[ "$d" = "$root" ] || [ "$d" = / ] && break
d=$(dirname -- "$d")
done
exit 0`;
}

export interface RemoteResources {
	/** The folder here that mirrors the machine's paths. */
	readonly mirror: string;
	/** The machine's canonical working directory and home. */
	readonly cwd: string;
	readonly home: string;
}

/** A folder here for one remote session's resources (removed with `dropMirror`). */
export function makeMirror(): string {
	return mkdtempSync(join(tmpdir(), "p2-prompts-"));
}

export function dropMirror(mirror: string): void {
	rmSync(mirror, { recursive: true, force: true });
}

/** A clean absolute path: no `..`, `.` or doubled slashes (it stays inside the mirror once joined to it). */
function clean(path: string): boolean {
	return (
		path.startsWith("/") && !path.includes("\0") && posix.normalize(path) === path && !path.split("/").includes("..")
	);
}

/** Whether `path` is a clean absolute path inside one of `roots`. */
function inside(path: string, roots: readonly string[]): boolean {
	return clean(path) && roots.some((root) => path.startsWith(`${root}/`));
}

/** Reads the machine's resources into `mirror` (replacing what was there); the machine's paths are returned. */
export async function fetchRemoteResources(env: Environment, cwd: string, mirror: string): Promise<RemoteResources> {
	const chunks: Uint8Array[] = [];
	let bytes = 0;
	const stop = new AbortController();
	await env.exec({
		command: `sh -c ${shellQuote(remoteScript())} p2 2>/dev/null`,
		cwd,
		signal: stop.signal,
		onData: (chunk) => {
			bytes += chunk.byteLength;
			if (bytes > MAX_TOTAL_BYTES) stop.abort();
			else chunks.push(chunk);
		},
	});
	const fields = Buffer.concat(chunks).toString("utf8").split("\0");
	let home = "";
	let real = cwd;
	let root = "";
	const files: { path: string; content: string }[] = [];
	for (let i = 0; i < fields.length; i++) {
		const field = fields[i]!;
		const kind = field[0];
		const value = field.slice(1);
		// What the machine says is checked before it names anything here.
		if (kind === "H") home = clean(value) ? value : "";
		else if (kind === "C") real = clean(value) ? value : real;
		else if (kind === "R") root = clean(value) ? value : "";
		else if (kind === "F") files.push({ path: value, content: fields[++i] ?? "" });
	}
	const ancestors: string[] = [];
	for (let d = real; ; d = posix.dirname(d)) {
		ancestors.push(`${d === "/" ? "" : d}/.agents/skills`);
		if (d === root || d === "/") break;
	}
	const roots = [
		...(home
			? [`${home}/.pi/p2/prompts`, `${home}/.pi/agent/prompts`, `${home}/.pi/agent/skills`, `${home}/.agents/skills`]
			: []),
		`${real}/.pi/prompts`,
		`${real}/.pi/skills`,
		...ancestors,
	];
	rmSync(mirror, { recursive: true, force: true });
	mkdirSync(mirror, { recursive: true, mode: 0o700 });
	// The repository's root, so the loader stops its walk up there as it would on the machine.
	if (!clean(real)) throw new Error(`not a clean absolute path: ${real}`);
	if (root) mkdirSync(join(mirror, root, ".git"), { recursive: true });
	mkdirSync(join(mirror, real), { recursive: true });
	for (const file of files) {
		if (!inside(file.path, roots)) continue;
		mkdirSync(join(mirror, posix.dirname(file.path)), { recursive: true });
		writeFileSync(join(mirror, file.path), file.content, { mode: 0o600 });
	}
	return { mirror, cwd: real, home };
}

/** The resources as the machine names them: the mirror's prefix taken off every path. */
export function machinePaths(resources: Resources, mirror: string): Resources {
	const strip = (path: string) => (path.startsWith(`${mirror}/`) ? path.slice(mirror.length) : path);
	return {
		templates: resources.templates.map((t) => ({ ...t, path: strip(t.path) })),
		skills: resources.skills.map((s) => ({ ...s, path: strip(s.path), dir: strip(s.dir) })),
		warnings: resources.warnings.map((w) => ({
			...w,
			path: strip(w.path),
			...(w.winner !== undefined ? { winner: strip(w.winner) } : {}),
		})),
	};
}
