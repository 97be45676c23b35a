import { colorToHex, colorToOklch, oklchColor, parseColor, type TerminalColorMode } from "@earendil-works/pi-tui";
import dark from "../../../assets/themes/dark.json";
import light from "../../../assets/themes/light.json";
import type { TerminalColors } from "../../protocol/channel.ts";
import type { ThemeJson } from "../../protocol/theme-schema.ts";
import { SYSTEM_SAMPLE_BACKGROUNDS, SYSTEM_SAMPLES } from "./system-samples.ts";
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

type Oklch = { l: number; c: number; h: number };

const oklchOf = (hex: string): Oklch => colorToOklch(parseColor(hex));

/** From a to b by t (t may reach past b a little), hue the short way round. */
function mix(a: Oklch, b: Oklch, t: number): Oklch {
	let dh = b.h - a.h;
	if (dh > 180) dh -= 360;
	if (dh < -180) dh += 360;
	const clamp = (v: number) => Math.min(1, Math.max(0, v));
	return { l: clamp(a.l + (b.l - a.l) * t), c: Math.max(0, a.c + (b.c - a.c) * t), h: (a.h + dh * t + 360) % 360 };
}

/**
 * A token's color for a background, from what pi generated for black, #1e1e2e and white (`SYSTEM_SAMPLES`):
 * dark backgrounds along the line through the two dark samples, by lightness; light ones from the white
 * sample, as much darker as the background is (so the contrast pi chose stays).
 */
function placed(samples: readonly [string, string, string], appearance: Appearance, backgroundL: number): string {
	const [black, mid, white] = samples.map(oklchOf) as [Oklch, Oklch, Oklch];
	if (appearance === "light") {
		const shifted = { ...white, l: Math.max(0, Math.min(1, white.l - (1 - backgroundL))) };
		return colorToHex(oklchColor(shifted.l, shifted.c, shifted.h));
	}
	const midL = oklchOf(SYSTEM_SAMPLE_BACKGROUNDS[1]).l;
	const color = mix(black, mid, Math.min(2.5, backgroundL / midL));
	return colorToHex(oklchColor(color.l, color.c, color.h));
}

/**
 * pi's system theme for a reported background: the built-in theme of its appearance, with every color pi
 * generates placed for that background (panels, body, accents, thinking levels), and body text in the
 * terminal's own foreground. Tokens pi does not generate keep the built-in values.
 */
export function adaptedTheme(background: { r: number; g: number; b: number }): ThemeJson {
	const appearance = appearanceOf(background);
	const base = structuredClone(BUILTIN_THEMES[appearance]);
	const colors: Record<string, string | number> = { ...base.colors };
	const backgroundL = oklchOf(
		`#${[background.r, background.g, background.b].map((v) => v.toString(16).padStart(2, "0")).join("")}`,
	).l;
	for (const [token, samples] of Object.entries(SYSTEM_SAMPLES)) {
		if (token in colors) colors[token] = placed(samples, appearance, backgroundL);
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
 * pi's default, `system`: with no reported background nor scheme, the ANSI fallback; with one, the built-in
 * theme of the same appearance adapted to it (see `adaptedTheme`), at the terminal's depth.
 */
export function systemTheme(facts: TerminalFacts): Theme {
	const background = facts.colors?.background ?? SCHEME_BACKGROUNDS[facts.colors?.scheme ?? "unknown"];
	if (!background) return Theme.ansi();
	return Theme.fromJson(adaptedTheme(background), colorMode(facts));
}

/** With no background reported, the scheme's plainest one stands in (black or white). */
const SCHEME_BACKGROUNDS: Readonly<Record<string, { r: number; g: number; b: number } | undefined>> = {
	dark: { r: 0, g: 0, b: 0 },
	light: { r: 255, g: 255, b: 255 },
	unknown: undefined,
};

/**
 * Light or dark, as pi decides it: by the reported background, else the scheme the terminal reported (mode
 * 2031) or `COLORFGBG` suggested (the launcher's `scheme`), else dark.
 */
export function schemeOf(facts: TerminalFacts): Appearance {
	const background = facts.colors?.background;
	if (background) return appearanceOf(background);
	return facts.colors?.scheme ?? "dark";
}
