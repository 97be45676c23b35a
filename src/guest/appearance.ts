/**
 * The preferences in effect and the theme made from them: the person's own (from the launcher) over the
 * server's defaults, the custom themes, the terminal's facts for the system theme, and the warnings about
 * files that could not be used.
 */
import type { StartData } from "../protocol/channel.ts";
import type { Preferences } from "../protocol/preferences.ts";
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
		this.#effective = effectivePreferences(start.preferences, undefined);
		this.#custom = customThemes(start.preferences?.themes ?? []);
		this.theme = new ThemeRef(this.#themeFor(this.#facts));
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

	/** The system theme follows what the terminal reports; an unchanged report keeps the theme (and caches). */
	setFacts(facts: TerminalFacts): void {
		if (JSON.stringify(facts) === JSON.stringify(this.#facts)) return;
		this.#facts = facts;
		this.#refreshTheme();
	}

	#apply(preferences: Preferences | undefined, server: ServerDefaults | undefined): void {
		this.#preferences = preferences;
		this.#server = server;
		this.#effective = effectivePreferences(preferences, server);
		this.#custom = customThemes(preferences?.themes ?? []);
		this.#notices?.update("local", [...(preferences?.problems ?? []), ...this.#custom.problems]);
		if (server) this.#notices?.update("server", server.problems);
		for (const listener of [...this.#listeners]) listener();
		const problem = this.#themeProblem;
		this.#refreshTheme();
		if (this.#themeProblem && this.#themeProblem !== problem) this.#notice(this.#themeProblem, "warning");
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
