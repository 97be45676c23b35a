import { posix } from "node:path";
import { ProtocolError } from "../../protocol/codes.ts";
import { fuzzyFilter } from "../../protocol/pi-tui-parts.ts";
import { type Environment, isOwner, LiveState, maySeeSession, type ServerPlugin } from "../../server/plugin.ts";
import { type FileSuggestion, filesContract, MAX_SUGGESTIONS } from "./contract.ts";

/** The `@` search looks at this many entries at most, and never into these. */
const MAX_WALK = 20_000;
const SKIPPED = [".git", "node_modules", ".hg", ".svn", "dist", "build", ".next", "target", ".venv"];

/**
 * How far Tab completion reaches: `server` is pi's (the home directory as `~/`, absolute paths), for owners;
 * `session` is the session's directory only, for guests (seed 8.2).
 */
export type Reach = "server" | "session";

/** The directory to list for what was typed up to its last slash, or null when it is out of reach. */
async function directoryFor(env: Environment, cwd: string, typedDir: string, reach: Reach): Promise<string | null> {
	if (reach === "server") {
		const there = typedDir.startsWith("~/") ? posix.join(await env.home(), typedDir.slice(2)) : typedDir;
		return there ? posix.resolve(cwd, there) : cwd;
	}
	// `~/` means the home directory to a pi user, and a guest has none there.
	if (typedDir.startsWith("~/") || posix.isAbsolute(typedDir)) return null;
	try {
		// Every symbolic link resolved: `..`, absolute paths and links pointing out all end up outside.
		const root = await env.directory(cwd);
		const real = await env.directory(posix.resolve(cwd, typedDir));
		const rel = posix.relative(root, real);
		return rel === ".." || rel.startsWith("../") || posix.isAbsolute(rel) ? null : real;
	} catch {
		return null;
	}
}

/** Tab: the entries of the typed directory that start with the typed name, directories first; one listing. */
export async function completePath(
	env: Environment,
	cwd: string,
	prefix: string,
	reach: Reach,
): Promise<{ items: FileSuggestion[]; truncated: boolean }> {
	const slash = prefix.lastIndexOf("/");
	// What was typed up to the last slash stays as typed (`src/`, `~/`, `/etc/`, `./`).
	const typedDir = slash >= 0 ? prefix.slice(0, slash + 1) : "";
	const base = prefix.slice(slash + 1);
	const dir = await directoryFor(env, cwd, typedDir, reach);
	if (dir === null) return { items: [], truncated: false };
	const listed = await env.listDirectory(dir).catch(() => []);
	const found = listed
		.filter((e) => e.name.startsWith(base) && (base.startsWith(".") || !e.name.startsWith(".")))
		.map((e) => ({ path: `${typedDir}${e.name}${e.dir ? "/" : ""}`, dir: e.dir }))
		.sort((a, b) => Number(b.dir) - Number(a.dir) || a.path.localeCompare(b.path));
	return { items: found.slice(0, MAX_SUGGESTIONS), truncated: found.length > MAX_SUGGESTIONS };
}

/**
 * `@`: files and folders under the session's directory whose relative path matches the query fuzzily. The
 * walk lists symbolic links and never follows them, so it cannot leave the directory.
 */
export async function findFiles(
	env: Environment,
	cwd: string,
	query: string,
): Promise<{ items: FileSuggestion[]; truncated: boolean }> {
	const walked = await env.walk(cwd, { skip: SKIPPED, hidden: query.startsWith("."), limit: MAX_WALK });
	const all = walked.entries.map((e) => (e.dir ? { path: `${e.path}/`, dir: true } : { path: e.path, dir: false }));
	const matched = query ? fuzzyFilter(all, query, (f) => f.path) : all;
	return { items: matched.slice(0, MAX_SUGGESTIONS), truncated: matched.length > MAX_SUGGESTIONS || walked.truncated };
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
							const env = ctx.environments.get(now.env);
							if (mode === "fuzzy") return findFiles(env, now.cwd, prefix);
							return completePath(env, now.cwd, prefix, reach);
						},
					},
				};
			},
		});
	},
};
