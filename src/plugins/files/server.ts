import { type Dirent, readdirSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, posix, relative, resolve } from "node:path";
import { ProtocolError } from "../../protocol/codes.ts";
import type { Environment } from "../../server/env/environment.ts";
import { LiveState } from "../../server/objects/live-state.ts";
import { isOwner, maySeeSession } from "../../server/objects/principal.ts";
import type { ServerPlugin } from "../../server/plugin.ts";
import { type FileSuggestion, filesContract, MAX_SUGGESTIONS } from "./contract.ts";
import { type FileIndex, FileIndexCache, type FileIndexCacheOptions, isIgnored } from "./file-index.ts";
import { rankFiles } from "./rank.ts";
import { realDirWithin } from "./within.ts";

type Completed = { items: FileSuggestion[]; truncated: boolean };

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

/**
 * What Tab offers from one listing, as pi: the entries whose name starts with the typed one (any case), hidden
 * ones too, directories first. Inside the session's directory (`within`: the listed directory relative to it,
 * with a slash, or "" for itself) what git ignores and `.git` are left out, as `@` leaves them out.
 */
function offered(
	listed: readonly { name: string; dir: boolean }[],
	typed: { dir: string; base: string },
	index: FileIndex | undefined,
	within: string | null,
): Completed {
	const base = typed.base.toLowerCase();
	const found = listed
		.filter((e) => e.name.toLowerCase().startsWith(base))
		.filter((e) => within === null || !index || !isIgnored(index, `${within}${e.name}${e.dir ? "/" : ""}`))
		.map((e) => ({ path: `${typed.dir}${e.name}${e.dir ? "/" : ""}`, dir: e.dir }))
		.sort((a, b) => Number(b.dir) - Number(a.dir) || a.path.localeCompare(b.path));
	return { items: found.slice(0, MAX_SUGGESTIONS), truncated: found.length > MAX_SUGGESTIONS };
}

/** What was typed up to its last slash stays as typed (`src/`, `~/`, `/etc/`, `./`); the rest is the name. */
function splitTyped(prefix: string): { dir: string; base: string } {
	const slash = prefix.lastIndexOf("/");
	return { dir: slash >= 0 ? prefix.slice(0, slash + 1) : "", base: prefix.slice(slash + 1) };
}

/** `dir` relative to the session's directory with a trailing slash ("" for itself), or null when outside. */
function withinSession(cwd: string, dir: string, path = { relative, isAbsolute }): string | null {
	const rel = path.relative(cwd, dir);
	if (rel === ".." || rel.startsWith("../") || path.isAbsolute(rel)) return null;
	return rel ? `${rel}/` : "";
}

function realOr(path: string): string {
	try {
		return realpathSync(path);
	} catch {
		return path;
	}
}

/** Tab: the entries of the typed directory that start with the typed name, directories first. */
export function completePath(cwd: string, prefix: string, reach: Reach, index?: FileIndex): Completed {
	const typed = splitTyped(prefix);
	const dir = directoryFor(cwd, typed.dir, reach);
	if (dir === null) return { items: [], truncated: false };
	const listed = entries(dir).map((e) => ({ name: e.name, dir: e.isDirectory() }));
	return offered(listed, typed, index, withinSession(realOr(cwd), realOr(dir)));
}

/** The index's entries that match the query, in pi's order (all of them for no query). */
export function findFiles(index: FileIndex, query: string): Completed {
	const matched = rankFiles(index.entries, query);
	return { items: matched.slice(0, MAX_SUGGESTIONS), truncated: matched.length > MAX_SUGGESTIONS || index.truncated };
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
	index?: FileIndex,
): Promise<Completed> {
	const typed = splitTyped(prefix);
	const dir = await remoteDirectoryFor(env, cwd, typed.dir, reach);
	if (dir === null) return { items: [], truncated: false };
	const listed = await env.listDirectory(dir).catch(() => []);
	const root = await env.directory(cwd).catch(() => cwd);
	return offered(listed, typed, index, withinSession(root, dir, posix));
}

/**
 * The files plugin with its cache of walks (one per machine and directory, refreshed after a short while);
 * tests pass their own walker and clock.
 */
export function filesServerPlugin(options: FileIndexCacheOptions = {}): ServerPlugin {
	return {
		name: "files",
		register(ctx) {
			const indexes = new FileIndexCache(options);
			ctx.host.serve(filesContract, {
				open({ session }, { principal }) {
					if (!maySeeSession(principal, session))
						throw new ProtocolError("forbidden", "this session is not shared with you");
					const record = ctx.catalog.get(session);
					if (!record) throw new ProtocolError("not_found", `no session ${session}`);
					return {
						state: new LiveState({ cwd: record.cwd }),
						methods: {
							async complete({ mode, prefix }, { principal: caller }) {
								const now = ctx.catalog.get(session) ?? record;
								const reach = isOwner(caller) ? "server" : "session";
								// The session's machine (this one or an SSH machine) walks; its files answer.
								const env = ctx.environments.get(now.env);
								// No walk (the directory is gone, the machine unreachable): no `@` answer, Tab unfiltered.
								const index = await indexes.get(env, now.cwd).catch(() => undefined);
								if (mode === "fuzzy") return index ? findFiles(index, prefix) : { items: [], truncated: false };
								if (now.env !== "local") return completeRemotePath(env, now.cwd, prefix, reach, index);
								return completePath(now.cwd, prefix, reach, index);
							},
						},
					};
				},
			});
		},
	};
}

export const filesPlugin: ServerPlugin = filesServerPlugin();
