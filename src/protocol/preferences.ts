import { isRecord, own } from "./own-keys.ts";
import type { DisplaySettings } from "./preferences-schema.ts";
import { matchesSettingType } from "./setting-types.ts";

/**
 * The person's display preferences: the whitelisted keys of pi's `settings.json` that belong to a terminal
 * (what the person's own files give the UI), nested as pi spells them. Anything else in the file (models, paths, commands, the
 * external editor) is never read into this, so it never reaches the worker.
 */
const SETTING_TYPES = {
	quietStartup: "boolean | 'header'",
	enableSkillCommands: "boolean",
	editorPaddingX: "number",
	outputPad: "0 | 1",
	autocompleteMaxVisible: "number",
	showHardwareCursor: "boolean",
	hideThinkingBlock: "boolean",
	doubleEscapeAction: "'tree' | 'fork' | 'none'",
	tuiMode: "'fullscreen' | 'regular'",
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

/** The settings' types, for the schema in `preferences-schema.ts` (which the launcher never loads). */
export const SETTING_TYPE_GROUPS = {
	top: SETTING_TYPES,
	terminal: TERMINAL_SETTING_TYPES,
	markdown: MARKDOWN_SETTING_TYPES,
} as const;

/** Every display setting by its dotted name (`terminal.showImages`), with its type. */
export const SETTING_PATHS: Readonly<Record<string, string>> = {
	...SETTING_TYPES,
	...Object.fromEntries(Object.entries(TERMINAL_SETTING_TYPES).map(([k, v]) => [`terminal.${k}`, v])),
	...Object.fromEntries(Object.entries(MARKDOWN_SETTING_TYPES).map(([k, v]) => [`markdown.${k}`, v])),
};

/** pi's defaults for the display settings (pi's SETTINGS_DEFAULTS, 1.6.0), by dotted name. */
export const DISPLAY_DEFAULTS = {
	quietStartup: false,
	enableSkillCommands: true,
	editorPaddingX: 0,
	outputPad: 1,
	autocompleteMaxVisible: 5,
	showHardwareCursor: false,
	hideThinkingBlock: false,
	doubleEscapeAction: "tree",
	tuiMode: "fullscreen",
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

/** pi's renderers: the alternate screen with its own scrolling (fullscreen), or the terminal's scrollback (regular). */
export const TUI_MODES = ["regular", "fullscreen"] as const;
export type TuiMode = (typeof TUI_MODES)[number];

export function isTuiMode(value: unknown): value is TuiMode {
	return value === "fullscreen" || value === "regular";
}

/** The value set for a dotted setting, undefined when none is. */
export function settingAt(settings: DisplaySettings, path: string): unknown {
	const [head, leaf] = path.split(".") as [string, string | undefined];
	const top = own(settings, head);
	return leaf ? own(top, leaf) : top;
}

/** Whether a value is valid for the display setting at a dotted path (false for a path that is not one). */
export function checkSetting(path: string, value: unknown): boolean {
	return Object.hasOwn(SETTING_PATHS, path) && matchesSettingType(SETTING_PATHS[path]!, value);
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

export const MAX_THEMES = 64;

export type { DisplaySettings, Preferences, ThemeFile } from "./preferences-schema.ts";

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
