import { type } from "arktype";
import { BG_TOKENS, EXPORT_TOKENS, FG_TOKENS, type ThemeToken, TOKEN_FALLBACKS } from "./theme-tokens.ts";

/** `#rgb`/`#rrggbb`, `okhsl(…)`, `oklch(…)`, a variable's name, `""` (the terminal's default), or 0–255. */
export const ColorValue = type("string <= 64 | 0 <= number.integer <= 255");
export type ColorValue = typeof ColorValue.infer;

const colorKeys = Object.fromEntries(
	[...FG_TOKENS, ...BG_TOKENS].map((token) => [TOKEN_FALLBACKS[token] ? `${token}?` : token, ColorValue]),
) as Record<string, typeof ColorValue>;

/** pi's theme file: the same fields, the same required tokens, nothing else. Built when first needed. */
const themeJson = () =>
	type({
		"$schema?": "string",
		name: "/^[^\\/]{1,64}$/",
		"appearance?": "'dark' | 'light'",
		"vars?": type({ "[string]": ColorValue }),
		colors: type(colorKeys).onUndeclaredKey("reject"),
		"export?": type(
			Object.fromEntries(EXPORT_TOKENS.map((token) => [`${token}?`, ColorValue])) as Record<string, typeof ColorValue>,
		).onUndeclaredKey("reject"),
	}).onUndeclaredKey("reject");
export interface ThemeJson {
	readonly $schema?: string;
	readonly name: string;
	readonly appearance?: "dark" | "light";
	readonly vars?: Readonly<Record<string, ColorValue>>;
	readonly colors: Readonly<Partial<Record<ThemeToken, ColorValue>>>;
	readonly export?: Readonly<Partial<Record<(typeof EXPORT_TOKENS)[number], ColorValue>>>;
}
let schema: ReturnType<typeof themeJson> | undefined;

/** Validates a theme document; the error names the theme and what is wrong, never the file's contents. */
export function parseThemeJson(label: string, json: unknown): ThemeJson {
	// The schema is built on the first custom theme: constructing it is a noticeable part of the UI's start.
	schema ??= themeJson();
	const checked = schema(json);
	if (checked instanceof type.errors) {
		// The first problem and how many more; a value from the file is named by its kind only.
		const lines = checked.summary.split("\n").map((line) => line.replace(/\(was "[^"]*"\)/g, "(was a string)"));
		const more = lines.length > 1 ? ` (and ${lines.length - 1} more)` : "";
		throw new Error(`theme ${label}: ${lines[0]!.slice(0, 200)}${more}`);
	}
	return checked as ThemeJson;
}
