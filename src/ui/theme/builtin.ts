import { colorToHex, colorToOklch, oklchColor, parseColor, type TerminalColorMode } from "@earendil-works/pi-tui";
import dark from "../../../assets/themes/dark.json";
import light from "../../../assets/themes/light.json";
import type { TerminalColors } from "../../protocol/channel.ts";
import type { ThemeJson } from "../../protocol/theme-schema.ts";
import { BG_TOKENS } from "../../protocol/theme-tokens.ts";
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

/** OKLab lightness of the panels for a background's lightness: p2's fit to pi's system theme (pi-look §4.3). */
function panelLightness(appearance: Appearance, background: number): number {
	return appearance === "dark" ? 0.29 + 0.107 * background : background - 0.044;
}

/**
 * The built-in theme of the background's appearance, adapted to that background as pi's system theme is: body
 * text in the terminal's own foreground, and the panels (messages, tool cards, selection) at a lightness that
 * keeps pi's contrast with the actual background, in the built-in hues. The other colors stay the built-in's.
 */
export function adaptedTheme(background: { r: number; g: number; b: number }): ThemeJson {
	const appearance = appearanceOf(background);
	const base = structuredClone(BUILTIN_THEMES[appearance]);
	const colors: Record<string, string | number> = { ...base.colors };
	const resolved = Theme.fromJson(base, "truecolor");
	const bgL = colorToOklch(
		parseColor(`#${[background.r, background.g, background.b].map((v) => v.toString(16).padStart(2, "0")).join("")}`),
	).l;
	const target = panelLightness(appearance, bgL);
	for (const token of BG_TOKENS) {
		const sgr = /48;2;(\d+);(\d+);(\d+)/.exec(resolved.bgPaint(token).open);
		if (!sgr) continue;
		const hex = `#${sgr
			.slice(1)
			.map((v) => Number(v).toString(16).padStart(2, "0"))
			.join("")}`;
		const panel = colorToOklch(parseColor(hex));
		// Chroma follows lightness, so a darker panel is not more colorful than pi's.
		const chroma = panel.l > 0 ? (panel.c * target) / panel.l : 0;
		colors[token] = colorToHex(oklchColor(target, chroma, panel.h));
	}
	for (const token of ["text", "userMessageText", "toolTitle"]) colors[token] = "";
	return { ...base, name: "system", colors };
}

/** A theme by name for this run: `system` (pi's default) or a built-in; undefined for a name it does not know. */
export function namedTheme(name: string, facts: TerminalFacts): Theme | undefined {
	if (name === "system") return systemTheme(facts);
	if (name === "dark" || name === "light") return Theme.fromJson(BUILTIN_THEMES[name], colorMode(facts));
	return undefined;
}

/**
 * pi's default, `system`: with no reported background, the ANSI fallback; with one, the built-in theme of the
 * same appearance adapted to it (see `adaptedTheme`), at the terminal's depth.
 */
export function systemTheme(facts: TerminalFacts): Theme {
	const background = facts.colors?.background;
	if (!background) return Theme.ansi();
	return Theme.fromJson(adaptedTheme(background), colorMode(facts));
}
