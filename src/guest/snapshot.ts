import { type } from "../protocol/ark.ts";
import { arktypeChecks } from "../protocol/arktype-checks.ts";
import { MAX_SNAPSHOT_CHARS } from "../protocol/channel-kinds.ts";
import { lazy } from "../protocol/lazy.ts";
import { type SchemaChecks, SNAPSHOT_KEY } from "../protocol/schema-checks.ts";

/**
 * What a worker hands its successor on reload or after a crash (through the launcher, unchanged): the person's
 * work and place. Which session was open, the draft (and other sessions' drafts), and the reading position as
 * an item key and a line offset into it, so new output or older pages never move what was being read.
 * Keys it does not declare are allowed and left behind by `parseSnapshot` (a newer worker may add some).
 */
export const ReloadSnapshot = lazy(() =>
	type({
		version: "1 | 2",
		draft: "string <= 1048576",
		"session?": "string <= 64",
		"drafts?": "Record<string, string <= 1048576>",
		"anchor?": { key: "string <= 128", offset: "0 <= number.integer <= 10000000" },
	}),
);
export type ReloadSnapshot = typeof ReloadSnapshot.infer;
export type ReadingAnchor = NonNullable<ReloadSnapshot["anchor"]>;

/** The keys `ReloadSnapshot` declares (a test holds them equal). */
export const SNAPSHOT_KEYS = ["version", "draft", "session", "drafts", "anchor"] as const;

/** The launcher carries at most `MAX_SNAPSHOT_CHARS`; over it, other sessions' drafts are left behind first. */
export function serializeSnapshot(snapshot: ReloadSnapshot): string {
	const text = JSON.stringify(snapshot);
	if (text.length <= MAX_SNAPSHOT_CHARS) return text;
	const { drafts: _others, ...mine } = snapshot;
	return JSON.stringify(mine);
}

/**
 * A snapshot from an older or broken worker is ignored rather than trusted. `checks`: the guest passes its
 * precompiled validators.
 */
export function parseSnapshot(
	text: string | undefined,
	checks: SchemaChecks = arktypeChecks,
): ReloadSnapshot | undefined {
	if (!text) return undefined;
	let data: unknown;
	try {
		data = JSON.parse(text);
	} catch {
		return undefined;
	}
	const verdict = checks.check(SNAPSHOT_KEY, ReloadSnapshot, data);
	if (!verdict.ok) return undefined;
	const checked = verdict.value as Record<string, unknown>;
	const kept: Record<string, unknown> = {};
	for (const key of SNAPSHOT_KEYS) if (Object.hasOwn(checked, key)) kept[key] = checked[key];
	return kept as ReloadSnapshot;
}
