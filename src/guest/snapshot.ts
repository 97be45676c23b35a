import { type } from "arktype";
import { MAX_SNAPSHOT_CHARS } from "../protocol/channel-kinds.ts";
import { lazy } from "../protocol/lazy.ts";

/**
 * What a worker hands its successor on reload or after a crash (through the launcher, unchanged): the person's
 * work and place. Which session was open, the draft (and other sessions' drafts), and the reading position as
 * an item key and a line offset into it, so new output or older pages never move what was being read.
 */
export const ReloadSnapshot = lazy(() =>
	type({
		version: "1 | 2",
		draft: "string <= 1048576",
		"session?": "string <= 64",
		"drafts?": "Record<string, string <= 1048576>",
		"anchor?": { key: "string <= 128", offset: "0 <= number.integer <= 10000000" },
		"+": "delete",
	}),
);
export type ReloadSnapshot = typeof ReloadSnapshot.infer;
export type ReadingAnchor = NonNullable<ReloadSnapshot["anchor"]>;

/** The launcher carries at most `MAX_SNAPSHOT_CHARS`; over it, other sessions' drafts are left behind first. */
export function serializeSnapshot(snapshot: ReloadSnapshot): string {
	const text = JSON.stringify(snapshot);
	if (text.length <= MAX_SNAPSHOT_CHARS) return text;
	const { drafts: _others, ...mine } = snapshot;
	return JSON.stringify(mine);
}

/** A snapshot from an older or broken worker is ignored rather than trusted. */
export function parseSnapshot(text: string | undefined): ReloadSnapshot | undefined {
	if (!text) return undefined;
	try {
		const parsed = ReloadSnapshot(JSON.parse(text));
		return parsed instanceof type.errors ? undefined : parsed;
	} catch {
		return undefined;
	}
}
