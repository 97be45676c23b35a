import { type Dirent, readdirSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, posix, relative, resolve } from "node:path";
import { ProtocolError } from "../../protocol/codes.ts";
import { fuzzyFilter } from "../../protocol/pi-tui-parts.ts";
import { type Environment, isOwner, LiveState, maySeeSession, type ServerPlugin } from "../../server/plugin.ts";
import { type FileSuggestion, filesContract, MAX_SUGGESTIONS } from "./contract.ts";
import { realDirWithin } from "./within.ts";

/** The `@` search looks at this many entries at most, and never into these. */
const MAX_WALK = 20_000;
const SKIPPED = new Set([".git", "node_modules", ".hg", ".svn", "dist", "build", ".next", "target", ".venv"]);

function entries(dir: string): Dirent[] {
	try {
		return readdirSync(dir, { withFileTypes: true });
	} catch {
		return [];
	}
}

/**
 * How far Tab completion reaches: `server` is pi's (the server's home as `~/`, absolute paths), for owners;
 * `session` is the session's directory only, for guests (seed 8.2).
 */
export type Reach = "server" | "session";

/** The directory to list for what was typed up to its last slash, or null when it is out of reach. */
function directoryFor(cwd: string, typedDir: string, reach: Reach): string | null {
	if (reach === "server") {
		const onDisk = typedDir.startsWith("~/") ? join(homedir(), typedDir.slice(2)) : typedDir;
		return onDisk ? resolve(cwd, onDisk) : cwd;
	}
	// `~/` means the home directory to a pi user, and a guest has none here.
	if (typedDir.startsWith("~/") || isAbsolute(typedDir)) return null;
	return realDirWithin(cwd, resolve(cwd, typedDir));
}

/** Tab: the entries of the typed directory that start with the typed name, directories first. */
export function completePath(
	cwd: string,
	prefix: string,
	reach: Reach,
): { items: FileSuggestion[]; truncated: boolean } {
	const slash = prefix.lastIndexOf("/");
	// What was typed up to the last slash stays as typed (`src/`, `~/`, `/etc/`, `./`).
	const typedDir = slash >= 0 ? prefix.slice(0, slash + 1) : "";
	const base = prefix.slice(slash + 1);
	const dir = directoryFor(cwd, typedDir, reach);
	if (dir === null) return { items: [], truncated: false };
	const found = entries(dir)
		.filter((e) => e.name.startsWith(base) && (base.startsWith(".") || !e.name.startsWith(".")))
		.map((e) => ({ path: `${typedDir}${e.name}${e.isDirectory() ? "/" : ""}`, dir: e.isDirectory() }))
		.sort((a, b) => Number(b.dir) - Number(a.dir) || a.path.localeCompare(b.path));
	return { items: found.slice(0, MAX_SUGGESTIONS), truncated: found.length > MAX_SUGGESTIONS };
}

/**
 * `@`: files and folders under the session's directory whose relative path matches the query fuzzily. A
 * symlink is listed and never followed (a Dirent of a symlink is no directory), so the walk cannot leave.
 */
export function findFiles(cwd: string, query: string): { items: FileSuggestion[]; truncated: boolean } {
	const all: FileSuggestion[] = [];
	const queue = [cwd];
	let seen = 0;
	while (queue.length && seen < MAX_WALK) {
		const dir = queue.shift()!;
		for (const e of entries(dir)) {
			if (++seen > MAX_WALK) break;
			if (e.name.startsWith(".") && !query.startsWith(".")) continue;
			const full = join(dir, e.name);
			const path = relative(cwd, full);
			if (e.isDirectory()) {
				if (SKIPPED.has(e.name)) continue;
				queue.push(full);
				all.push({ path: `${path}/`, dir: true });
			} else all.push({ path, dir: false });
		}
	}
	const matched = query ? fuzzyFilter(all, query, (f) => f.path) : all;
	return { items: matched.slice(0, MAX_SUGGESTIONS), truncated: matched.length > MAX_SUGGESTIONS || seen > MAX_WALK };
}

/** The typed directory on a remote machine, or null when it is out of reach (the same rules as above). */
async function remoteDirectoryFor(
	env: Environment,
	cwd: string,
	typedDir: string,
	reach: Reach,
): Promise<string | null> {
	if (reach === "server") {
		const there = typedDir.startsWith("~/") ? posix.join(await env.home(), typedDir.slice(2)) : typedDir;
		return there ? posix.resolve(cwd, there) : cwd;
	}
	if (typedDir.startsWith("~/") || posix.isAbsolute(typedDir)) return null;
	try {
		const root = await env.directory(cwd);
		const real = await env.directory(posix.resolve(cwd, typedDir));
		const rel = posix.relative(root, real);
		return rel === ".." || rel.startsWith("../") || posix.isAbsolute(rel) ? null : real;
	} catch {
		return null;
	}
}

/** Tab on a remote machine: one listing of the typed directory. */
export async function completeRemotePath(
	env: Environment,
	cwd: string,
	prefix: string,
	reach: Reach,
): Promise<{ items: FileSuggestion[]; truncated: boolean }> {
	const slash = prefix.lastIndexOf("/");
	const typedDir = slash >= 0 ? prefix.slice(0, slash + 1) : "";
	const base = prefix.slice(slash + 1);
	const dir = await remoteDirectoryFor(env, cwd, typedDir, reach);
	if (dir === null) return { items: [], truncated: false };
	const listed = await env.listDirectory(dir).catch(() => []);
	const found = listed
		.filter((e) => e.name.startsWith(base) && (base.startsWith(".") || !e.name.startsWith(".")))
		.map((e) => ({ path: `${typedDir}${e.name}${e.dir ? "/" : ""}`, dir: e.dir }))
		.sort((a, b) => Number(b.dir) - Number(a.dir) || a.path.localeCompare(b.path));
	return { items: found.slice(0, MAX_SUGGESTIONS), truncated: found.length > MAX_SUGGESTIONS };
}

/** How much of a remote listing `@` reads at most. */
const MAX_REMOTE_LISTING = 4 * 1024 * 1024;

/**
 * `@` on a remote machine: one `find` there (a walk of listings would be a round trip per folder), pruning
 * what the local walk skips, hidden entries too unless the query starts with a dot.
 */
export async function findRemoteFiles(
	env: Environment,
	cwd: string,
	query: string,
): Promise<{ items: FileSuggestion[]; truncated: boolean }> {
	const prune = [...SKIPPED, ...(query.startsWith(".") ? [] : [".*"])].map((n) => `-name '${n}'`).join(" -o ");
	const command = `find . -mindepth 1 \\( ${prune} \\) -prune -o -type d -exec printf 'd%s\\0' {} + -o -exec printf 'f%s\\0' {} + 2>/dev/null | head -c ${MAX_REMOTE_LISTING}`;
	const chunks: Uint8Array[] = [];
	await env.exec({ command, cwd, onData: (chunk) => chunks.push(chunk) });
	const items = Buffer.concat(chunks).toString("utf8").split("\0");
	const all: FileSuggestion[] = [];
	for (const item of items.slice(0, MAX_WALK)) {
		const path = item.slice(3);
		if (!path) continue;
		all.push(item[0] === "d" ? { path: `${path}/`, dir: true } : { path, dir: false });
	}
	const matched = query ? fuzzyFilter(all, query, (f) => f.path) : all;
	return {
		items: matched.slice(0, MAX_SUGGESTIONS),
		truncated: matched.length > MAX_SUGGESTIONS || items.length > MAX_WALK,
	};
}

export const filesPlugin: ServerPlugin = {
	name: "files",
	register(ctx) {
		ctx.host.serve(filesContract, {
			open({ session }, { principal }) {
				if (!maySeeSession(principal, session))
					throw new ProtocolError("forbidden", "this session is not shared with you");
				const record = ctx.catalog.get(session);
				if (!record) throw new ProtocolError("not_found", `no session ${session}`);
				return {
					state: new LiveState({ cwd: record.cwd }),
					methods: {
						complete({ mode, prefix }, { principal: caller }) {
							const now = ctx.catalog.get(session) ?? record;
							const reach = isOwner(caller) ? "server" : "session";
							// A session on another machine completes from that machine's files.
							if (now.env !== "local") {
								const env = ctx.environments.get(now.env);
								if (mode === "fuzzy") return findRemoteFiles(env, now.cwd, prefix);
								return completeRemotePath(env, now.cwd, prefix, reach);
							}
							if (mode === "fuzzy") return findFiles(now.cwd, prefix);
							return completePath(now.cwd, prefix, reach);
						},
					},
				};
			},
		});
	},
};
