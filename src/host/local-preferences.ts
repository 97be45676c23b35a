/**
 * The person's own preferences, read by the launcher: pi's `keybindings.json`, `settings.json` and
 * `themes/*.json` (in `$PI_CODING_AGENT_DIR` or `~/.pi/agent`), then p2's `prefs.json`, which overrides them.
 * Every read is bounded; only the whitelisted display keys, valid key bindings and theme documents pass, and
 * problems are named without paths or contents. pi's files are only ever read.
 */

import { type FSWatcher, readdirSync, statSync, watch } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { errorText } from "../protocol/errors.ts";
import { readKeybindings } from "../protocol/keybindings.ts";
import { FORBIDDEN_KEYS, forbiddenKeyIn, isRecord, own } from "../protocol/own-keys.ts";
import {
	type DisplaySettings,
	MAX_THEMES,
	mergeSettings,
	type Preferences,
	readDisplaySettings,
	type ThemeFile,
} from "../protocol/preferences.ts";
import { parseThemeJson } from "../protocol/theme-schema.ts";
import { readBounded } from "./bounded-read.ts";

const MAX_THEME_BYTES_TOTAL = 1024 * 1024;
const WATCH_DEBOUNCE_MS = 100;

export interface PreferencePaths {
	/** pi's agent directory. */
	readonly agentDir: string;
	/** p2's own directory (`prefs.json` lives there). */
	readonly p2Dir: string;
}

export function preferencePaths(env: Record<string, string | undefined>): PreferencePaths {
	const home = env.HOME ?? homedir();
	return {
		agentDir: env.PI_CODING_AGENT_DIR ?? join(home, ".pi", "agent"),
		p2Dir: env.P2_TUI_CONFIG_DIR ?? join(home, ".pi", "p2-tui"),
	};
}

function readJson(path: string, label: string, problems: string[], limit?: number): unknown {
	const read = readBounded(path, limit);
	if (read.kind === "missing") return undefined;
	if (read.kind === "problem") {
		problems.push(`${label} ${read.problem}`);
		return undefined;
	}
	try {
		return JSON.parse(read.text);
	} catch {
		problems.push(`${label} is not valid JSON`);
		return undefined;
	}
}

/** A `theme` setting as read from a file: a bounded name (or `light/dark` pair), else a problem. */
function themeSetting(value: unknown, label: string, problems: string[]): string | undefined {
	if (value === undefined) return undefined;
	if (typeof value === "string" && value.length <= 130) return value;
	problems.push(`${label}: invalid theme`);
	return undefined;
}

/** What `prefs.json` holds that the worker may see (launcher-only keys stay here). */
export interface SavedPrefs {
	readonly keybindings: Record<string, string[]>;
	readonly theme?: string;
	readonly settings: DisplaySettings;
}

function readPrefsFile(p2Dir: string, problems: string[]): SavedPrefs {
	const raw = readJson(join(p2Dir, "prefs.json"), "prefs.json", problems);
	if (raw === undefined) return { keybindings: {}, settings: {} };
	if (!isRecord(raw)) {
		problems.push("prefs.json: not an object");
		return { keybindings: {}, settings: {} };
	}
	const rawKeys = own(raw, "keybindings");
	const rawSettings = own(raw, "settings");
	const keys = rawKeys === undefined ? { bindings: {}, problems: [] } : readKeybindings(rawKeys, "prefs.json");
	const settings =
		rawSettings === undefined ? { settings: {}, problems: [] } : readDisplaySettings(rawSettings, "prefs.json");
	problems.push(...keys.problems, ...settings.problems);
	const theme = themeSetting(own(raw, "theme"), "prefs.json", problems);
	return { keybindings: keys.bindings, ...(theme ? { theme } : {}), settings: settings.settings };
}

function readThemes(agentDir: string, problems: string[]): ThemeFile[] {
	const dir = join(agentDir, "themes");
	let names: string[];
	try {
		names = readdirSync(dir)
			.filter((n) => n.endsWith(".json"))
			.sort();
	} catch {
		return [];
	}
	if (names.length > MAX_THEMES) problems.push(`themes: only the first ${MAX_THEMES} files are read`);
	const themes: ThemeFile[] = [];
	let total = 0;
	for (const file of names.slice(0, MAX_THEMES)) {
		const label = `themes/${file.slice(0, 64)}`;
		const read = readBounded(join(dir, file));
		if (read.kind === "missing") continue;
		if (read.kind === "problem") {
			problems.push(`${label} ${read.problem}`);
			continue;
		}
		total += read.text.length;
		if (total > MAX_THEME_BYTES_TOTAL) {
			problems.push("themes: more than 1 MiB in total; the rest are not read");
			break;
		}
		let json: unknown;
		try {
			json = JSON.parse(read.text);
		} catch {
			problems.push(`${label} is not valid JSON`);
			continue;
		}
		// pi's schema, here as in pi: only a theme document goes on to the UI, under the name it declares.
		const forbidden = forbiddenKeyIn(json);
		if (forbidden) {
			problems.push(`${label}: the key ${forbidden} is not allowed`);
			continue;
		}
		try {
			const theme = parseThemeJson(label, json);
			if (FORBIDDEN_KEYS.has(theme.name)) throw new Error(`theme ${label}: the name ${theme.name} is not allowed`);
			themes.push({ name: theme.name, json: theme });
		} catch (error) {
			problems.push(errorText(error).slice(0, 300));
		}
	}
	return themes;
}

export interface ReadOptions {
	/** `--no-themes`: custom theme files are not read for this run. */
	readonly noThemes?: boolean;
}

/** Reads everything once. Precedence: built-in < pi's files < `prefs.json`. */
export function readPreferences(paths: PreferencePaths, options: ReadOptions = {}): Preferences {
	const problems: string[] = [];
	const rawKeys = readJson(join(paths.agentDir, "keybindings.json"), "keybindings.json", problems);
	const piKeys = rawKeys === undefined ? { bindings: {}, problems: [] } : readKeybindings(rawKeys, "keybindings.json");
	problems.push(...piKeys.problems);
	const rawSettings = readJson(join(paths.agentDir, "settings.json"), "settings.json", problems);
	const piSettings =
		rawSettings === undefined ? { settings: {}, problems: [] } : readDisplaySettings(rawSettings, "settings.json");
	problems.push(...piSettings.problems);
	const piTheme = themeSetting(own(rawSettings, "theme"), "settings.json", problems);
	const saved = readPrefsFile(paths.p2Dir, problems);
	const themes = options.noThemes ? [] : readThemes(paths.agentDir, problems);
	const theme = saved.theme ?? piTheme;
	return {
		keybindings: { ...piKeys.bindings, ...saved.keybindings },
		...(theme ? { theme } : {}),
		settings: mergeSettings(piSettings.settings, saved.settings),
		themes,
		problems: problems.slice(0, 200).map((p) => p.slice(0, 300)),
		saved,
	};
}

/** A launcher-only string key of a preferences file (`externalEditor`, `downloads`); undefined when absent. */
function launcherKey(file: string, key: string): string | undefined {
	const read = readBounded(file);
	if (read.kind !== "text") return undefined;
	try {
		const value = own(JSON.parse(read.text), key);
		return typeof value === "string" && value.trim() ? value.trim() : undefined;
	} catch {
		return undefined;
	}
}

/**
 * The external editor command, which only the launcher ever sees: `prefs.json` externalEditor, then pi's
 * settings.json externalEditor, then $VISUAL, $EDITOR, then nano (notepad on Windows).
 */
export function editorCommand(
	paths: PreferencePaths,
	env: Record<string, string | undefined>,
	platform: string,
): string {
	return (
		launcherKey(join(paths.p2Dir, "prefs.json"), "externalEditor") ??
		launcherKey(join(paths.agentDir, "settings.json"), "externalEditor") ??
		(env.VISUAL?.trim() || env.EDITOR?.trim() || (platform === "win32" ? "notepad" : "nano"))
	);
}

/** The download folder, launcher-only: `prefs.json` downloads (`~/` allowed), else ~/Downloads/p2. */
export function downloadFolder(paths: PreferencePaths, env: Record<string, string | undefined>): string {
	const home = env.HOME ?? homedir();
	const dir = launcherKey(join(paths.p2Dir, "prefs.json"), "downloads");
	if (!dir) return join(home, "Downloads", "p2");
	return dir === "~" || dir.startsWith("~/") ? home + dir.slice(1) : dir;
}

/** The directory itself, or the nearest parent that exists (where it will appear). */
function nearestExisting(dir: string): string {
	let at = dir;
	for (let i = 0; i < 8; i++) {
		try {
			if (statSync(at).isDirectory()) return at;
		} catch {
			// Not there: try its parent.
		}
		const parent = dirname(at);
		if (parent === at) break;
		at = parent;
	}
	return at;
}

/**
 * Watches pi's directory, its themes and p2's directory (through the parent while it does not exist yet, so a
 * first save applies too), and calls back with the preferences when they changed.
 */
export function watchPreferences(
	paths: PreferencePaths,
	options: ReadOptions,
	initial: Preferences,
	onChange: (preferences: Preferences) => void,
): { stop(): void; check(): void; checks(): number } {
	let last = JSON.stringify(initial);
	let checks = 0;
	let timer: ReturnType<typeof setTimeout> | undefined;
	let watchers: FSWatcher[] = [];
	let closed = false;
	const arm = () => {
		for (const w of watchers) w.close();
		watchers = [];
		const targets = new Set([paths.agentDir, join(paths.agentDir, "themes"), paths.p2Dir].map(nearestExisting));
		for (const target of targets) {
			try {
				watchers.push(watch(target, { persistent: false }, schedule));
			} catch {
				// Gone between the check and the watch: the next change anywhere else re-arms.
			}
		}
	};
	const schedule = () => {
		if (closed) return;
		if (timer) clearTimeout(timer);
		timer = setTimeout(check, WATCH_DEBOUNCE_MS);
	};
	const check = () => {
		timer = undefined;
		if (closed) return;
		// A directory may have appeared or been replaced: watch the current ones.
		arm();
		const next = readPreferences(paths, options);
		checks++;
		const text = JSON.stringify(next);
		if (text === last) return;
		last = text;
		onChange(next);
	};
	arm();
	return {
		check,
		// How many times the files were read again: a test waits for the read a change caused.
		checks: () => checks,
		stop: () => {
			closed = true;
			if (timer) clearTimeout(timer);
			for (const w of watchers) w.close();
		},
	};
}
