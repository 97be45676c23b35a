import { posix } from "node:path";
import type { Environment } from "../../server/plugin.ts";

/** A path inside the session's directory: its real path on the machine and the path as shown (relative, `/`-separated). */
export interface Confined {
	readonly real: string;
	readonly rel: string;
}

/** A typed path as the session's directory reads it (relative, never climbing out), or null. */
export function lexical(typed: string): string | null {
	if (typed.includes("\0") || posix.isAbsolute(typed) || typed.startsWith("~")) return null;
	const rel = posix.normalize(typed || ".");
	return rel === ".." || rel.startsWith("../") ? null : rel;
}

function inside(root: string, path: string): boolean {
	return path === root || path.startsWith(root === "/" ? "/" : `${root}/`);
}

/**
 * `typed` resolved in the session's directory `root` on its machine, or null when it is not there: an absolute
 * path, `~`, a `..` that climbs out, a symbolic link (anywhere on the way) whose target is outside, or a missing
 * file. A link that stays inside is followed; the shown path is the typed one, normalized.
 */
export async function confine(env: Environment, root: string, typed: string): Promise<Confined | null> {
	const rel = lexical(typed);
	if (rel === null) return null;
	const [realRoot, real] = await Promise.all([env.realPath(root), env.realPath(posix.join(root, rel))]);
	if (realRoot === null || real === null || !inside(realRoot, real)) return null;
	return { real, rel: rel === "." ? "" : rel };
}
