/**
 * The preferences as schemas, for the channel between the launcher and the UI (the UI and the server check
 * with them). The launcher itself reads preferences without a schema library (`preferences.ts`), so that its
 * start does not load one.
 */
import { type } from "./ark.ts";
import { lazy } from "./lazy.ts";
import { MAX_THEMES, SETTING_TYPE_GROUPS } from "./preferences.ts";

const SETTING_TYPES = SETTING_TYPE_GROUPS.top;
const TERMINAL_SETTING_TYPES = SETTING_TYPE_GROUPS.terminal;
const MARKDOWN_SETTING_TYPES = SETTING_TYPE_GROUPS.markdown;

const optional = <T extends Record<string, string>>(types: T) =>
	Object.fromEntries(Object.entries(types).map(([k, v]) => [`${k}?`, v])) as {
		[K in keyof T as `${K & string}?`]: T[K];
	};

export const DisplaySettings = lazy(() =>
	type({
		...optional(SETTING_TYPES),
		"terminal?": type(optional(TERMINAL_SETTING_TYPES)).onUndeclaredKey("reject"),
		"markdown?": type(optional(MARKDOWN_SETTING_TYPES)).onUndeclaredKey("reject"),
	}).onUndeclaredKey("reject"),
);
export type DisplaySettings = typeof DisplaySettings.infer;

export const KeyBindingsRecord = lazy(() => type({ "[string <= 128]": type("string <= 64").array().atMostLength(16) }));

/** A custom theme as the launcher read it: its name and the document (the guest validates it as a theme). */
export const ThemeFile = lazy(() => type({ name: "string <= 64", json: "unknown" }));
export type ThemeFile = typeof ThemeFile.infer;

/**
 * What the launcher sends the guest after reading pi's files and `prefs.json`, merged (pi's files first).
 * `problems` are display-only lines for /hotkeys, without paths or contents.
 */
export const Preferences = lazy(() =>
	type({
		keybindings: KeyBindingsRecord,
		/** The theme setting: a name, or pi's automatic pair `light/dark`. */
		"theme?": "string <= 130",
		settings: DisplaySettings,
		themes: ThemeFile.array().atMostLength(MAX_THEMES),
		problems: type("string <= 300").array().atMostLength(200),
		/** What `prefs.json` itself holds, so /settings and /keybindings can show what a change would replace. */
		saved: {
			keybindings: KeyBindingsRecord,
			"theme?": "string <= 130",
			settings: DisplaySettings,
		},
	}),
);
export type Preferences = typeof Preferences.infer;
