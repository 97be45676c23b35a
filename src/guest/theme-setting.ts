/**
 * pi's `theme` setting: `system` (the default), a built-in, a custom theme's name, or an automatic pair
 * `light/dark` chosen by the terminal's background. Custom themes come from the launcher as documents and
 * are validated here with pi's schema.
 */
import { errorText } from "../protocol/errors.ts";
import type { ThemeFile } from "../protocol/preferences.ts";
import { parseThemeJson, type ThemeJson } from "../protocol/theme-schema.ts";
import { colorMode, namedTheme, schemeOf, systemTheme, type TerminalFacts } from "../ui/theme/builtin.ts";
import { Theme } from "../ui/theme/theme.ts";

export const BUILTIN_NAMES = ["system", "dark", "light"] as const;

export interface CustomThemes {
	readonly themes: ReadonlyMap<string, ThemeJson>;
	/** Files that are not themes, by name only. */
	readonly problems: readonly string[];
}

/** Validates the launcher's theme files. Built-in names are reserved (pi: `system` wins over a file). */
export function customThemes(files: readonly ThemeFile[]): CustomThemes {
	const themes = new Map<string, ThemeJson>();
	const problems: string[] = [];
	for (const file of files) {
		try {
			const json = parseThemeJson(file.name, file.json);
			if ((BUILTIN_NAMES as readonly string[]).includes(json.name)) {
				problems.push(`themes: ${json.name} is a built-in theme's name; the file is ignored`);
				continue;
			}
			if (json.name.includes("/")) {
				problems.push(`themes: "${json.name}" has a "/", which is reserved for light/dark pairs`);
				continue;
			}
			themes.set(json.name, json);
		} catch (error) {
			problems.push(`themes: ${errorText(error)}`.slice(0, 300));
		}
	}
	return { themes, problems };
}

/** `light/dark` → its two names; undefined when the setting is not a pair. */
export function parsePair(setting: string): { light: string; dark: string } | undefined {
	const parts = setting.split("/");
	if (parts.length !== 2) return undefined;
	const [light, dark] = parts.map((p) => p.trim()) as [string, string];
	return light && dark ? { light, dark } : undefined;
}

/** The name a setting picks for this terminal (pi: a pair by the terminal's scheme, dark when it is unknown). */
export function resolveThemeName(setting: string, facts: TerminalFacts): string | undefined {
	const pair = parsePair(setting);
	if (pair) {
		return schemeOf(facts) === "light" ? pair.light : pair.dark;
	}
	return setting.includes("/") ? undefined : setting;
}

/** The theme a setting names, or the system theme with the reason when it names none (pi falls back the same). */
export function themeFor(
	setting: string | undefined,
	facts: TerminalFacts,
	custom: CustomThemes,
): { theme: Theme; problem?: string } {
	const name = resolveThemeName(setting ?? "system", facts);
	const builtin = name ? namedTheme(name, facts) : undefined;
	if (builtin) return { theme: builtin };
	const json = name ? custom.themes.get(name) : undefined;
	if (json) return { theme: Theme.fromJson(json, colorMode(facts)) };
	return { theme: systemTheme(facts), problem: `Unknown theme "${setting}": using the system theme` };
}

/** Every name a person can choose, system first, then by name (pi's theme list). */
export function themeNames(custom: CustomThemes): string[] {
	return ["system", ...["dark", "light", ...custom.themes.keys()].sort((a, b) => a.localeCompare(b))];
}
