/**
 * Reading values that came from outside (the worker, the server, a frame, a file) by their own keys only.
 * `JSON.parse` and structured clone make `__proto__` an ordinary own key, and a plain property walk or an
 * `in` check finds inherited keys (`constructor`, `toString`): either can steer code into `Object.prototype`.
 */

/** Keys refused wherever outside data names a key: they address prototypes, not data. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

export type PlainRecord = Readonly<Record<string, unknown>>;

/** A JSON-like object (not null, not an array). */
export function isRecord(value: unknown): value is PlainRecord {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The value of an own key, or undefined; never an inherited one. */
export function own(record: unknown, key: string): unknown {
	return isRecord(record) && Object.hasOwn(record, key) ? record[key] : undefined;
}

/** Whether `key` is an own key of the table (a constant table, looked up with a key from outside). */
export function hasOwnKey(table: object, key: string): boolean {
	return Object.hasOwn(table, key);
}

/**
 * The first forbidden key anywhere in a JSON-like value (objects and arrays, to `maxDepth`), or undefined.
 * Deeper nesting than `maxDepth` counts as forbidden too: nothing legitimate is nested that deep.
 */
export function forbiddenKeyIn(value: unknown, maxDepth = 16): string | undefined {
	const walk = (v: unknown, depth: number): string | undefined => {
		if (typeof v !== "object" || v === null) return undefined;
		if (depth > maxDepth) return "(nesting too deep)";
		if (Array.isArray(v)) {
			for (const item of v) {
				const found = walk(item, depth + 1);
				if (found) return found;
			}
			return undefined;
		}
		for (const key of Object.keys(v)) {
			if (FORBIDDEN_KEYS.has(key)) return key;
			const found = walk((v as PlainRecord)[key], depth + 1);
			if (found) return found;
		}
		return undefined;
	};
	return walk(value, 0);
}

/** A fresh object without a prototype: assigning any key to it, `__proto__` included, stays data. */
export function nullRecord<T = unknown>(): Record<string, T> {
	return Object.create(null) as Record<string, T>;
}
