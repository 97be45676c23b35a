import { BG_TOKENS, EXPORT_TOKENS, FG_TOKENS, type ThemeToken, TOKEN_FALLBACKS } from "./theme-tokens.ts";

/** `#rgb`/`#rrggbb`, `okhsl(…)`, `oklch(…)`, a variable's name, `""` (the terminal's default), or 0–255. */
export type ColorValue = string | number;

export interface ThemeJson {
	readonly $schema?: string;
	readonly name: string;
	readonly appearance?: "dark" | "light";
	readonly vars?: Readonly<Record<string, ColorValue>>;
	readonly colors: Readonly<Partial<Record<ThemeToken, ColorValue>>>;
	readonly export?: Readonly<Partial<Record<(typeof EXPORT_TOKENS)[number], ColorValue>>>;
}

const TOP_LEVEL = new Set(["$schema", "name", "appearance", "vars", "colors", "export"]);
const COLOR_TOKENS: ReadonlySet<string> = new Set([...FG_TOKENS, ...BG_TOKENS]);
const EXPORTS: ReadonlySet<string> = new Set(EXPORT_TOKENS);

class ThemeProblem extends Error {}

function isColorValue(value: unknown): value is ColorValue {
	return typeof value === "string"
		? value.length <= 64
		: typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= 255;
}

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A value's kind for a message: never the value itself (it is the person's file). */
function kindOf(value: unknown): string {
	return value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`;
}

/** A record of colors by own key, every key allowed by `allowed` (all keys when undefined). */
function colorRecord(value: unknown, where: string, allowed?: ReadonlySet<string>): Record<string, ColorValue> {
	if (!isObject(value)) throw new ThemeProblem(`${where} must be an object (was ${kindOf(value)})`);
	const out: Record<string, ColorValue> = Object.create(null);
	for (const key of Object.keys(value)) {
		if (allowed && !allowed.has(key)) throw new ThemeProblem(`${where}.${key.slice(0, 64)} is not a theme token`);
		const color = value[key];
		if (!isColorValue(color)) {
			throw new ThemeProblem(
				`${where}.${key.slice(0, 64)} must be a color (a string of at most 64 characters or 0–255; was ${kindOf(color)})`,
			);
		}
		out[key] = color;
	}
	return out;
}

function checkTheme(json: unknown): ThemeJson {
	if (!isObject(json)) throw new ThemeProblem(`must be an object (was ${kindOf(json)})`);
	for (const key of Object.keys(json)) {
		if (!TOP_LEVEL.has(key)) throw new ThemeProblem(`${key.slice(0, 64)} is not a theme field`);
	}
	const field = (key: string) => (Object.hasOwn(json, key) ? json[key] : undefined);
	const name = field("name");
	if (typeof name !== "string" || !/^[^/]{1,64}$/.test(name)) {
		throw new ThemeProblem("name must be 1 to 64 characters without a slash");
	}
	const schema = field("$schema");
	if (schema !== undefined && typeof schema !== "string") throw new ThemeProblem("$schema must be a string");
	const appearance = field("appearance");
	if (appearance !== undefined && appearance !== "dark" && appearance !== "light") {
		throw new ThemeProblem('appearance must be "dark" or "light"');
	}
	const colors = colorRecord(field("colors"), "colors", COLOR_TOKENS);
	for (const token of COLOR_TOKENS) {
		if (!Object.hasOwn(colors, token) && !Object.hasOwn(TOKEN_FALLBACKS, token)) {
			throw new ThemeProblem(`colors.${token} is missing`);
		}
	}
	const vars = field("vars") === undefined ? undefined : colorRecord(field("vars"), "vars");
	const exported = field("export") === undefined ? undefined : colorRecord(field("export"), "export", EXPORTS);
	return {
		...(schema === undefined ? {} : { $schema: schema }),
		name,
		...(appearance === undefined ? {} : { appearance }),
		...(vars ? { vars } : {}),
		colors,
		...(exported ? { export: exported } : {}),
	};
}

/**
 * Validates a theme document (pi's fields, its required tokens, nothing else), by hand: the launcher and the
 * UI check themes at start, before anything else needs a schema library. The error names the theme and what
 * is wrong, never the file's contents.
 */
export function parseThemeJson(label: string, json: unknown): ThemeJson {
	try {
		return checkTheme(json);
	} catch (error) {
		if (error instanceof ThemeProblem) throw new Error(`theme ${label}: ${error.message}`);
		throw error;
	}
}
