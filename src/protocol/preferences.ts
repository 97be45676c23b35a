import { type } from "arktype";
import { lazy } from "./lazy.ts";
import { isRecord, own } from "./own-keys.ts";

/**
 * The person's display preferences: the whitelisted keys of pi's `settings.json` that belong to a terminal
 * (seed 1.14, "G"), nested as pi spells them. Anything else in the file (models, paths, commands, the
 * external editor) is never read into this, so it never reaches the worker.
 */
const SETTING_TYPES = {
	quietStartup: "boolean | 'header'",
	editorPaddingX: "number",
	outputPad: "0 | 1",
	autocompleteMaxVisible: "number",
	showHardwareCursor: "boolean",
	hideThinkingBlock: "boolean",
	doubleEscapeAction: "'tree' | 'fork' | 'none'",
	fullscreenExitOutput: "'transcript' | 'resume-hint'",
	fullscreenScrollbar: "'auto' | 'always' | 'hidden'",
	fullscreenCopyOnSelect: "boolean",
	fullscreenWheelScrollLines: "number | 'auto'",
} as const;
const TERMINAL_SETTING_TYPES = {
	clearOnShrink: "boolean",
	showTerminalProgress: "boolean",
	showImages: "boolean",
	imageWidthCells: "number",
	hyperlinks: "boolean | 'auto'",
	images: "'kitty' | 'iterm2' | 'auto' | false",
	trueColor: "boolean | 'auto'",
} as const;
const MARKDOWN_SETTING_TYPES = {
	codeBlockIndent: "string <= 16",
	mermaid: "'off' | 'final' | 'streaming'",
} as const;

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

/** Every display setting by its dotted name (`terminal.showImages`), with its type. */
export const SETTING_PATHS: Readonly<Record<string, string>> = {
	...SETTING_TYPES,
	...Object.fromEntries(Object.entries(TERMINAL_SETTING_TYPES).map(([k, v]) => [`terminal.${k}`, v])),
	...Object.fromEntries(Object.entries(MARKDOWN_SETTING_TYPES).map(([k, v]) => [`markdown.${k}`, v])),
};

/** pi's defaults for the display settings (pi's SETTINGS_DEFAULTS, 1.6.0), by dotted name. */
export const DISPLAY_DEFAULTS = {
	quietStartup: false,
	editorPaddingX: 0,
	outputPad: 1,
	autocompleteMaxVisible: 5,
	showHardwareCursor: false,
	hideThinkingBlock: false,
	doubleEscapeAction: "tree",
	fullscreenExitOutput: "transcript",
	fullscreenScrollbar: "auto",
	fullscreenCopyOnSelect: true,
	fullscreenWheelScrollLines: "auto",
	"terminal.clearOnShrink": false,
	"terminal.showTerminalProgress": false,
	"terminal.showImages": true,
	"terminal.imageWidthCells": 60,
	"markdown.codeBlockIndent": "  ",
	"markdown.mermaid": "streaming",
} as const;
export type DisplayDefaults = typeof DISPLAY_DEFAULTS;

/** The value set for a dotted setting, undefined when none is. */
export function settingAt(settings: DisplaySettings, path: string): unknown {
	const [head, leaf] = path.split(".") as [string, string | undefined];
	const top = own(settings, head);
	return leaf ? own(top, leaf) : top;
}

const settingCheckers = new Map<string, (value: unknown) => boolean>();
/** Whether a value is valid for the display setting at a dotted path (false for a path that is not one). */
export function checkSetting(path: string, value: unknown): boolean {
	let check = settingCheckers.get(path);
	if (!check) {
		if (!Object.hasOwn(SETTING_PATHS, path)) return false;
		const schema = type(SETTING_PATHS[path] as "string");
		check = (v) => !(schema(v) instanceof type.errors);
		settingCheckers.set(path, check);
	}
	return check(value);
}

/**
 * The display settings in a `settings.json` document: each known key checked on its own, so one bad value
 * costs only that setting (pi's accessors fall back to the default the same way). Reported by name only.
 * Only the document's own keys are read.
 */
export function readDisplaySettings(raw: unknown, label: string): { settings: DisplaySettings; problems: string[] } {
	const problems: string[] = [];
	const out: Record<string, unknown> = {};
	if (!isRecord(raw)) return { settings: {}, problems: [`${label}: not a settings object`] };
	for (const path of Object.keys(SETTING_PATHS)) {
		const [head, leaf] = path.split(".") as [string, string | undefined];
		const group = leaf ? own(raw, head) : raw;
		if (leaf && !isRecord(group)) continue;
		const value = own(group, leaf ?? head);
		if (value === undefined) continue;
		if (!checkSetting(path, value)) {
			problems.push(`${label}: invalid ${path}`);
			continue;
		}
		if (!leaf) {
			out[head] = value;
			continue;
		}
		const inner = (own(out, head) ?? {}) as Record<string, unknown>;
		inner[leaf] = value;
		out[head] = inner;
	}
	return { settings: out as DisplaySettings, problems };
}

export const KeyBindingsRecord = lazy(() => type({ "[string <= 128]": type("string <= 64").array().atMostLength(16) }));

/** A custom theme as the launcher read it: its name and the document (the guest validates it as a theme). */
export const ThemeFile = lazy(() => type({ name: "string <= 64", json: "unknown" }));
export type ThemeFile = typeof ThemeFile.infer;

export const MAX_THEMES = 64;

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

/**
 * A change to `prefs.json` proposed by the UI (savePrefs): `null` removes a key. Only these three keys; the
 * launcher checks it (`validatePrefsPatch`) and refuses privileged ids and invalid values before it shows anything.
 */
export type PrefsPatch = {
	readonly keybindings?: Readonly<Record<string, readonly string[] | null>>;
	readonly theme?: string | null;
	readonly settings?: Readonly<Record<string, unknown>>;
};

/** Settings of a later source over an earlier one, one level into `terminal` and `markdown` (as pi merges). */
export function mergeSettings(base: DisplaySettings, over: DisplaySettings): DisplaySettings {
	const group = (key: "terminal" | "markdown") => {
		const a = own(base, key) as Record<string, unknown> | undefined;
		const b = own(over, key) as Record<string, unknown> | undefined;
		return a || b ? { [key]: { ...a, ...b } } : {};
	};
	return { ...base, ...over, ...group("terminal"), ...group("markdown") };
}
