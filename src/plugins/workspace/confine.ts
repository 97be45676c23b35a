import { realpathSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";

/** A path inside the session's directory: its real path on disk and the path as shown (relative, `/`-separated). */
export interface Confined {
	readonly real: string;
	readonly rel: string;
}

function realOrNull(path: string): string | null {
	try {
		return realpathSync(path);
	} catch {
		return null;
	}
}

function inside(root: string, path: string): boolean {
	const rel = relative(root, path);
	return !(rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel));
}

/**
 * `typed` resolved in the session's directory `root`, or null when it is not there: an absolute path, `~`, a
 * `..` that climbs out, a symbolic link (anywhere on the way) whose target is outside, or a missing file. A
 * link that stays inside is followed; the shown path is the typed one, normalized.
 */
export function confine(root: string, typed: string): Confined | null {
	if (typed.includes("\0") || isAbsolute(typed) || typed.startsWith("~")) return null;
	const realRoot = realOrNull(root);
	if (realRoot === null) return null;
	const lexical = resolve(realRoot, typed);
	if (!inside(realRoot, lexical)) return null;
	const real = realOrNull(lexical);
	if (real === null || !inside(realRoot, real)) return null;
	return { real, rel: relative(realRoot, lexical).split(sep).join("/") };
}
