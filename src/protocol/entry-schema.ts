import type { Type } from "arktype";

/**
 * A plugin's transcript entry type (`kind: "plugin"` entries with this `type`) and the schema of its `data`,
 * declared next to its contract: the server writes such entries, and the guest checks each one's data with the
 * validator precompiled from this schema before the plugin's renderer sees it.
 */
export interface EntrySchema<Data = unknown> {
	/** The entry's `type`, `<plugin>.<name>` (`chat-mode.message`). */
	readonly type: string;
	readonly data: Type<Data>;
}

// biome-ignore lint/suspicious/noExplicitAny: arktype's `Type` is invariant; the widest entry schema erases it.
export type AnyEntrySchema = EntrySchema<any>;
export type DataOf<E> = E extends EntrySchema<infer D> ? D : never;

const DEFINED = new WeakSet<object>();

export function defineEntry<Data>(type: string, data: Type<Data>): EntrySchema<Data> {
	if (!/^[a-z][a-z0-9-]*\.[a-z][a-z0-9-]*$/.test(type)) throw new Error(`"${type}" is not <plugin>.<name>`);
	const entry = Object.freeze({ type, data });
	DEFINED.add(entry);
	return entry;
}

export function isEntrySchema(value: unknown): value is AnyEntrySchema {
	return typeof value === "object" && value !== null && DEFINED.has(value);
}

/** The key of an entry type's precompiled validator (see `schema-checks.ts`). */
export function entryKey(entry: Pick<AnyEntrySchema, "type">): string {
	return `entry/${entry.type}`;
}
