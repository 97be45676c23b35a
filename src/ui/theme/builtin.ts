import type { TerminalColorMode } from "@earendil-works/pi-tui";
import dark from "../../../assets/themes/dark.json";
import light from "../../../assets/themes/light.json";
import type { TerminalColors } from "../../protocol/channel.ts";
import type { ThemeJson } from "./schema.ts";
import { type Appearance, Theme } from "./theme.ts";

/** pi's built-in themes. They ship with this code and are not validated at start (a test checks them). */
export const BUILTIN_THEMES: Readonly<Record<"dark" | "light", ThemeJson>> = {
	dark: dark as ThemeJson,
	light: light as ThemeJson,
};

/** What the terminal told the launcher: its colors (if it answered) and whether it takes 24-bit color. */
export interface TerminalFacts {
	readonly colors?: TerminalColors;
	readonly trueColor: boolean;
}

export function colorMode(facts: TerminalFacts): TerminalColorMode {
	return facts.trueColor ? "truecolor" : "256color";
}

/** Dark or light, from the background the terminal reported (relative luminance). */
export function appearanceOf(background: { r: number; g: number; b: number }): Appearance {
	const channel = (v: number) => {
		const c = v / 255;
		return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
	};
	const luminance = 0.2126 * channel(background.r) + 0.7152 * channel(background.g) + 0.0722 * channel(background.b);
	return luminance > 0.4 ? "light" : "dark";
}

/**
 * pi's default, `system`: with no reported background, the ANSI fallback; with one, the built-in theme of the
 * same appearance at the terminal's depth. (pi generates contrast-tuned colors from the reported background;
 * p2 does not yet.)
 */
export function systemTheme(facts: TerminalFacts): Theme {
	const background = facts.colors?.background;
	if (!background) return Theme.ansi();
	return Theme.fromJson(BUILTIN_THEMES[appearanceOf(background)], colorMode(facts));
}
