import { realpathSync } from "node:fs";
import { isAbsolute, relative, sep } from "node:path";

function realpathOrNull(path: string): string | null {
	try {
		return realpathSync(path);
	} catch {
		return null;
	}
}

/**
 * `dir` with every symlink resolved, when that real path lies inside the real `root` (or is it); null when it
 * is outside, missing or unreadable. `..`, absolute paths and symlinks pointing out all end up outside.
 */
export function realDirWithin(root: string, dir: string): string | null {
	const realRoot = realpathOrNull(root);
	const real = realpathOrNull(dir);
	if (realRoot === null || real === null) return null;
	const rel = relative(realRoot, real);
	const outside = rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel);
	return outside ? null : real;
}
