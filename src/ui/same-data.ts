/**
 * Deep equality of plain display data without serialising it: a growing answer differs at its text's length at
 * once, and unchanged parts are usually the very same strings and objects, so a comparison costs what changed.
 */
export function sameData(a: unknown, b: unknown): boolean {
	if (a === b) return true;
	if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
	if (Array.isArray(a)) {
		if (!Array.isArray(b) || a.length !== b.length) return false;
		return a.every((item, i) => sameData(item, b[i]));
	}
	if (Array.isArray(b)) return false;
	const keys = Object.keys(a);
	if (keys.length !== Object.keys(b).length) return false;
	const x = a as Record<string, unknown>;
	const y = b as Record<string, unknown>;
	return keys.every((key) => Object.hasOwn(y, key) && sameData(x[key], y[key]));
}
