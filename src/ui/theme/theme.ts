import {
	backgroundAnsi,
	type Color,
	foregroundAnsi,
	indexedColor,
	parseColor,
	type TerminalColorMode,
} from "@earendil-works/pi-tui";
import type { ColorValue, ThemeJson } from "../../protocol/theme-schema.ts";
import {
	BG_TOKENS,
	type BgToken,
	FG_TOKENS,
	type FgToken,
	type ThemeToken,
	TOKEN_FALLBACKS,
} from "../../protocol/theme-tokens.ts";

/** How one token is drawn: the SGR that opens it and the one that closes it ("" for the terminal's default). */
export interface Paint {
	readonly open: string;
	readonly close: string;
}

const NONE: Paint = { open: "", close: "" };
const FAINT: Paint = { open: "\x1b[2m", close: "\x1b[22m" };
const MAX_VAR_DEPTH = 16;

export type Appearance = "dark" | "light";

/**
 * One theme for one terminal: every token resolved once to the SGR it emits at the terminal's color depth. A
 * value, not a global: each runtime (and each preview) holds its own.
 */
export class Theme {
	readonly name: string;
	readonly appearance: Appearance;
	readonly mode: TerminalColorMode;
	readonly #fg: Record<FgToken, Paint>;
	readonly #bg: Record<BgToken, Paint>;

	private constructor(
		name: string,
		appearance: Appearance,
		mode: TerminalColorMode,
		fg: Record<FgToken, Paint>,
		bg: Record<BgToken, Paint>,
	) {
		this.name = name;
		this.appearance = appearance;
		this.mode = mode;
		this.#fg = fg;
		this.#bg = bg;
	}

	/** A theme file (already validated) at a color depth. Throws on an unknown or circular variable. */
	static fromJson(json: ThemeJson, mode: TerminalColorMode): Theme {
		const colors = json.colors as Partial<Record<ThemeToken, ColorValue>>;
		const vars = json.vars ?? {};
		const resolve = (value: ColorValue, depth = 0): Color | undefined => {
			if (typeof value === "number") return indexedColor(value);
			if (value === "") return undefined;
			if (/^(#|okhsl\(|oklch\()/i.test(value)) {
				try {
					return parseColor(value);
				} catch {
					throw new Error(`theme ${json.name}: ${JSON.stringify(value)} is not a color`);
				}
			}
			const next = vars[value];
			if (next === undefined) throw new Error(`theme ${json.name}: unknown variable ${JSON.stringify(value)}`);
			if (depth >= MAX_VAR_DEPTH) throw new Error(`theme ${json.name}: variable ${value} refers to itself`);
			return resolve(next, depth + 1);
		};
		const declared = (token: ThemeToken): ColorValue => {
			const value = colors[token] ?? colors[TOKEN_FALLBACKS[token]!];
			if (value === undefined) throw new Error(`theme ${json.name}: no color for ${token}`);
			return value;
		};
		const fg = {} as Record<FgToken, Paint>;
		for (const token of FG_TOKENS) {
			const color = resolve(declared(token));
			fg[token] = color ? { open: foregroundAnsi(color, mode), close: "\x1b[39m" } : NONE;
		}
		const bg = {} as Record<BgToken, Paint>;
		for (const token of BG_TOKENS) {
			const color = resolve(declared(token));
			bg[token] = color ? { open: backgroundAnsi(color, mode), close: "\x1b[49m" } : NONE;
		}
		return new Theme(json.name, json.appearance ?? "dark", mode, fg, bg);
	}

	/**
	 * pi's `system` theme when the terminal reports no colors: the 16 ANSI colors by index, the terminal's own
	 * foreground for body text, faint for the neutral tokens, and no panel backgrounds.
	 */
	static ansi(): Theme {
		const fg = {} as Record<FgToken, Paint>;
		for (const token of FG_TOKENS) {
			const index = ANSI_INDEXES[token];
			fg[token] =
				index !== undefined
					? { open: foregroundAnsi(indexedColor(index), "256color"), close: "\x1b[39m" }
					: DEFAULT_FOREGROUND.has(token)
						? NONE
						: FAINT;
		}
		const bg = Object.fromEntries(BG_TOKENS.map((token) => [token, NONE])) as Record<BgToken, Paint>;
		return new Theme("system", "dark", "256color", fg, bg);
	}

	fg(token: FgToken, text: string): string {
		const paint = this.#fg[token];
		return paint.open === "" ? text : `${paint.open}${text}${paint.close}`;
	}

	/** pi's full-width `─` line that frames selectors and blocks, in `border` (or another token). */
	rule(width: number, token: FgToken = "border"): string {
		return this.fg(token, "─".repeat(Math.max(1, width)));
	}

	bg(token: BgToken, text: string): string {
		const paint = this.#bg[token];
		return paint.open === "" ? text : `${paint.open}${text}${paint.close}`;
	}

	/** The raw SGR of a token, for code that composes its own sequences. */
	fgPaint(token: FgToken): Paint {
		return this.#fg[token];
	}

	bgPaint(token: BgToken): Paint {
		return this.#bg[token];
	}

	/** Whether a panel token draws a background at all (the ANSI fallback draws none). */
	hasBg(token: BgToken): boolean {
		return this.#bg[token].open !== "";
	}

	bold(text: string): string {
		return `\x1b[1m${text}\x1b[22m`;
	}

	italic(text: string): string {
		return `\x1b[3m${text}\x1b[23m`;
	}

	underline(text: string): string {
		return `\x1b[4m${text}\x1b[24m`;
	}

	strikethrough(text: string): string {
		return `\x1b[9m${text}\x1b[29m`;
	}

	inverse(text: string): string {
		return `\x1b[7m${text}\x1b[27m`;
	}
}

/** The ANSI palette index of each colored token in the fallback (pi 1.6.0's fallback when the terminal does not report its colors). */
const ANSI_INDEXES: Partial<Record<FgToken, number>> = {
	accent: 5,
	borderAccent: 5,
	customMessageLabel: 5,
	mdCode: 5,
	mdListBullet: 5,
	syntaxType: 5,
	syntaxNumber: 5,
	thinkingHigh: 5,
	border: 4,
	mdLink: 4,
	syntaxKeyword: 4,
	thinkingMinimal: 4,
	thinkingLow: 4,
	syntaxVariable: 6,
	thinkingMedium: 6,
	success: 2,
	mdCodeBlock: 2,
	toolDiffAdded: 2,
	bashMode: 2,
	syntaxString: 2,
	error: 1,
	toolDiffRemoved: 1,
	thinkingMax: 1,
	warning: 3,
	mdHeading: 3,
	syntaxFunction: 3,
	thinkingXhigh: 13,
};
const DEFAULT_FOREGROUND = new Set<FgToken>(["text", "userMessageText", "toolTitle"]);
