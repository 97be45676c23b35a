/**
 * The preferences in effect and the theme made from them: the person's own (from the launcher) over the
 * server's defaults, the custom themes, the terminal's facts for the system theme, and the warnings about
 * files that could not be used.
 */
import type { StartData } from "../protocol/channel.ts";
import { type DisplaySettings, mergeSettings, type Preferences, settingAt } from "../protocol/preferences.ts";
import { sameData } from "../ui/same-data.ts";
import type { TerminalFacts } from "../ui/theme/builtin.ts";
import { ThemeRef } from "../ui/theme/theme-ref.ts";
import type { NoticeTone } from "./layout.ts";
import type { GuestPreferences } from "./plugin.ts";
import { PreferenceNotices } from "./preference-notices.ts";
import { type EffectivePreferences, effectivePreferences, type ServerDefaults } from "./preferences.ts";
import { type CustomThemes, customThemes, resolveThemeName, themeFor } from "./theme-setting.ts";

export class Appearance implements GuestPreferences {
	readonly theme: ThemeRef;
	readonly #start: StartData;
	readonly #notice: (text: string, tone: NoticeTone) => void;
	readonly #listeners = new Set<() => void>();
	#preferences: Preferences | undefined;
	#server: ServerDefaults | undefined;
	/** What the files say (the person's over the server's), before this run's keys. */
	#fromFiles: EffectivePreferences;
	/** Settings a key changed in this run (Ctrl+T): pi saves them; here they last until a file changes them. */
	#run: DisplaySettings = {};
	#effective: EffectivePreferences;
	#custom: CustomThemes;
	#facts: TerminalFacts;
	#themeProblem: string | undefined;
	/** What the current theme was made from (see `#refreshTheme`). */
	#themeSource: string;
	#notices: PreferenceNotices | undefined;

	constructor(start: StartData, notice: (text: string, tone: NoticeTone) => void) {
		this.#start = start;
		this.#notice = notice;
		this.#facts = { colors: start.terminalColors, trueColor: start.capabilities.trueColor };
		this.#preferences = start.preferences;
		this.#fromFiles = effectivePreferences(start.preferences, undefined);
		this.#effective = this.#fromFiles;
		this.#custom = customThemes(start.preferences?.themes ?? []);
		this.theme = new ThemeRef(this.#themeFor(this.#facts));
		this.theme.setHyperlinks(start.capabilities.hyperlinks === true);
		this.#themeSource = this.#themeKey();
	}

	effective(): EffectivePreferences {
		return this.#effective;
	}

	get custom(): CustomThemes {
		return this.#custom;
	}

	get facts(): TerminalFacts {
		return this.#facts;
	}

	/** The preferences changed: the keymap, the settings and maybe the theme follow. */
	onChange(listener: () => void): () => void {
		this.#listeners.add(listener);
		return () => this.#listeners.delete(listener);
	}

	/** At start: what is wrong with the theme and the person's files (a reloaded UI only remembers them). */
	startNotices(): void {
		if (this.#themeProblem) this.#notice(this.#themeProblem, "warning");
		this.#notices = new PreferenceNotices((text, tone) => this.#notice(text, tone), {
			quiet: this.#start.reason !== "start",
		});
		this.#notices.update("local", [...(this.#preferences?.problems ?? []), ...this.#custom.problems]);
	}

	setPreferences(preferences: Preferences): void {
		this.#apply(preferences, this.#server);
	}

	setServerDefaults(defaults: ServerDefaults): void {
		this.#apply(this.#preferences, defaults);
	}

	/** A display setting changed by a key for this run (pi's Ctrl+T): in effect, and what /settings shows. */
	setForRun(settings: DisplaySettings): void {
		this.#run = mergeSettings(this.#run, settings);
		this.#effective = this.#withRun(this.#fromFiles);
		for (const listener of [...this.#listeners]) listener();
	}

	/** The system theme follows what the terminal reports; an unchanged report keeps the theme (and caches). */
	setFacts(facts: TerminalFacts): void {
		if (JSON.stringify(facts) === JSON.stringify(this.#facts)) return;
		this.#facts = facts;
		this.#refreshTheme();
	}

	#apply(preferences: Preferences | undefined, server: ServerDefaults | undefined): void {
		const themesBefore = this.#preferences?.themes ?? [];
		this.#preferences = preferences;
		this.#server = server;
		const before = this.#fromFiles;
		this.#fromFiles = effectivePreferences(preferences, server);
		// A file that changed a setting since a key did has the last word on it.
		this.#run = keepUnchanged(this.#run, before.settings, this.#fromFiles.settings);
		this.#effective = this.#withRun(this.#fromFiles);
		this.#custom = customThemes(preferences?.themes ?? []);
		this.#notices?.update("local", [...(preferences?.problems ?? []), ...this.#custom.problems]);
		if (server) this.#notices?.update("server", server.problems);
		// The same preferences again (the server's defaults arriving at start, a file saved unchanged): nothing to
		// rebuild. Every listener rebuilds keys and settings, a few milliseconds on the way to the first frame.
		if (sameData(before, this.#fromFiles) && sameData(themesBefore, preferences?.themes ?? [])) return;
		for (const listener of [...this.#listeners]) listener();
		const problem = this.#themeProblem;
		this.#refreshTheme();
		if (this.#themeProblem && this.#themeProblem !== problem) this.#notice(this.#themeProblem, "warning");
	}

	#withRun(fromFiles: EffectivePreferences): EffectivePreferences {
		return { ...fromFiles, settings: mergeSettings(fromFiles.settings, this.#run) };
	}

	/**
	 * A new theme only when what it is made of changed (the setting, the terminal's facts, the chosen custom
	 * theme's document): every component rebuilds on a new theme, so an unrelated change must not cause one.
	 */
	#refreshTheme(): void {
		const key = this.#themeKey();
		if (key === this.#themeSource) return;
		this.#themeSource = key;
		this.theme.set(this.#themeFor(this.#facts));
	}

	#themeKey(): string {
		const setting = this.#start.args.theme ?? this.#effective.theme ?? "system";
		const name = resolveThemeName(setting, this.#facts);
		return JSON.stringify([setting, this.#facts, (name && this.#custom.themes.get(name)) ?? null]);
	}

	/** `--theme` for this run, else the person's setting, else pi's `system` theme. */
	#themeFor(facts: TerminalFacts) {
		const setting = this.#start.args.theme ?? this.#effective.theme;
		const { theme, problem } = themeFor(setting, facts, this.#custom);
		this.#themeProblem = problem;
		return theme;
	}
}

/** The run's settings whose value in the files did not change from `before` to `after`. */
function keepUnchanged(run: DisplaySettings, before: DisplaySettings, after: DisplaySettings): DisplaySettings {
	const kept: Record<string, unknown> = {};
	for (const [key, value] of Object.entries(run)) {
		if (value !== null && typeof value === "object") {
			const group: Record<string, unknown> = {};
			for (const [leaf, inner] of Object.entries(value)) {
				const path = `${key}.${leaf}`;
				if (settingAt(before, path) === settingAt(after, path)) group[leaf] = inner;
			}
			if (Object.keys(group).length) kept[key] = group;
		} else if (settingAt(before, key) === settingAt(after, key)) kept[key] = value;
	}
	return kept as DisplaySettings;
}
