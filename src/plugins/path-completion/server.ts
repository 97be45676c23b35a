import { posix } from "node:path";
import { ProtocolError } from "../../protocol/codes.ts";
import { type Environment, isOwner, LiveState, maySeeSession, type ServerPlugin } from "../../server/plugin.ts";
import { type FileSuggestion, MAX_SUGGESTIONS, pathCompletionContract } from "./contract.ts";
import { type FileIndex, FileIndexCache, type FileIndexCacheOptions, isIgnored } from "./file-index.ts";
import { rankFiles } from "./rank.ts";

type Completed = { items: FileSuggestion[]; truncated: boolean };

/**
 * How far Tab completion reaches: `server` is pi's (the server's home as `~/`, absolute paths), for owners;
 * `session` is the session's directory only, for guests.
 */
export type Reach = "server" | "session";

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
function withinSession(cwd: string, dir: string): string | null {
	const rel = posix.relative(cwd, dir);
	if (rel === ".." || rel.startsWith("../") || posix.isAbsolute(rel)) return null;
	return rel ? `${rel}/` : "";
}

/** The index's entries that match the query, in pi's order (all of them for no query). */
export function findFiles(index: FileIndex, query: string): Completed {
	const matched = rankFiles(index.entries, query);
	return { items: matched.slice(0, MAX_SUGGESTIONS), truncated: matched.length > MAX_SUGGESTIONS || index.truncated };
}

/**
 * The directory to list for what was typed up to its last slash, on the session's machine (this one or an SSH
 * machine), or null when it is out of reach: `~/` and absolute paths only for owners, and never out of the
 * session's directory for guests (`..` and links pointing out end up outside).
 */
async function directoryFor(env: Environment, cwd: string, typedDir: string, reach: Reach): Promise<string | null> {
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

/** Tab: one listing of the typed directory on the session's machine. */
export async function completePath(
	env: Environment,
	cwd: string,
	prefix: string,
	reach: Reach,
	index?: FileIndex,
): Promise<Completed> {
	const typed = splitTyped(prefix);
	const dir = await directoryFor(env, cwd, typed.dir, reach);
	if (dir === null) return { items: [], truncated: false };
	const listed = await env.listDirectory(dir).catch(() => []);
	// Compared as real paths: a session directory reached through a link is still the session's.
	const [root, real] = await Promise.all([env.directory(cwd).catch(() => cwd), env.directory(dir).catch(() => dir)]);
	return offered(listed, typed, index, withinSession(root, real));
}

/**
 * The path-completion plugin with its cache of walks (one per machine and directory, refreshed after a short while);
 * tests pass their own walker and clock.
 */
export function pathCompletionServerPlugin(options: FileIndexCacheOptions = {}): ServerPlugin {
	return {
		name: "path-completion",
		register(ctx) {
			const indexes = new FileIndexCache(options);
			ctx.host.serve(pathCompletionContract, {
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
								return completePath(env, now.cwd, prefix, reach, index);
							},
						},
					};
				},
			});
		},
	};
}

export const pathCompletionPlugin: ServerPlugin = pathCompletionServerPlugin();
