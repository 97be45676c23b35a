import { type } from "../protocol/ark.ts";
import { arktypeChecks } from "../protocol/arktype-checks.ts";
import { MAX_SNAPSHOT_CHARS } from "../protocol/channel-kinds.ts";
import { lazy } from "../protocol/lazy.ts";
import { type SchemaChecks, SNAPSHOT_KEY } from "../protocol/schema-checks.ts";

/**
 * What a worker hands its successor on reload or after a crash (through the launcher, unchanged): the person's
 * work and place. Which session was open, the draft (and other sessions' drafts), and the reading position as
 * an item key and a line offset into it, so new output or older pages never move what was being read.
 * `screen` keeps pi's renderer across the swap: its mode, and in regular mode what is in the terminal's
 * scrollback (pi-tui's TuiMainScreen render state), so the successor draws on from it instead of below it.
 * Keys it does not declare are allowed and left behind by `parseSnapshot` (a newer worker may add some).
 */
export const ReloadSnapshot = lazy(() =>
	type({
		version: "1 | 2",
		draft: "string <= 1048576",
		"session?": "string <= 64",
		"drafts?": "Record<string, string <= 1048576>",
		"anchor?": { key: "string <= 128", offset: "0 <= number.integer <= 10000000" },
		"screen?": {
			mode: "'fullscreen' | 'regular'",
			"scrollback?": {
				lines: type("string <= 1048576").array().atMostLength(1_000_000),
				width: "0 <= number.integer <= 100000",
				height: "0 <= number.integer <= 100000",
				cursorRow: "0 <= number.integer <= 10000000",
				hardwareCursorRow: "0 <= number.integer <= 10000000",
				maxLinesRendered: "0 <= number.integer <= 10000000",
				viewportTop: "0 <= number.integer <= 10000000",
			},
		},
	}),
);
export type ReloadSnapshot = typeof ReloadSnapshot.infer;
export type ReadingAnchor = NonNullable<ReloadSnapshot["anchor"]>;
export type ScreenSnapshot = NonNullable<ReloadSnapshot["screen"]>;
/** What the regular renderer has written into the terminal's scrollback (pi-tui's TuiMainScreenRenderState). */
export type ScrollbackState = NonNullable<ScreenSnapshot["scrollback"]>;

/** The keys `ReloadSnapshot` declares (a test holds them equal). */
export const SNAPSHOT_KEYS = ["version", "draft", "session", "drafts", "anchor", "screen"] as const;

/**
 * The launcher carries at most `MAX_SNAPSHOT_CHARS`; over it, other sessions' drafts are left behind first,
 * then the scrollback's lines (the successor then draws the screen afresh, clearing it, rather than below it).
 */
export function serializeSnapshot(snapshot: ReloadSnapshot): string {
	const text = JSON.stringify(snapshot);
	if (text.length <= MAX_SNAPSHOT_CHARS) return text;
	const { drafts: _others, ...mine } = snapshot;
	const smaller = JSON.stringify(mine);
	if (smaller.length <= MAX_SNAPSHOT_CHARS || !mine.screen?.scrollback) return smaller;
	return JSON.stringify({ ...mine, screen: { mode: mine.screen.mode } });
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
