import type { EditorTheme, MarkdownTheme, SelectListTheme, SettingsListTheme } from "@earendil-works/pi-tui";
import { THINKING_TOKENS } from "../../protocol/theme-tokens.ts";
import type { ThinkingLevel } from "../../protocol/thinking-levels.ts";
import { highlightLines } from "../highlight.ts";
import type { Theme } from "./theme.ts";

const SGR = /\x1b\[[0-9;:]*m/g;
const HTTPS_URL = /^https:\/\/[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]+$/;

/**
 * A link's styled text, as an OSC 8 hyperlink when it shows an https address: pi-tui draws a link whose text
 * differs from its address as the text and the address in parentheses (hyperlinks off for it), so the address
 * a person sees is the one the link opens.
 */
function linkedUrl(styled: string): string {
	const shown = styled.replace(SGR, "");
	return HTTPS_URL.test(shown) ? `\x1b]8;;${shown}\x1b\\${styled}\x1b]8;;\x1b\\` : styled;
}

/**
 * The theme a runtime (or a preview) draws with. Components hold the ref, never the theme: the derived pi-tui
 * themes dereference the current theme on every call, and `version` tells caches when to rebuild.
 */
export class ThemeRef {
	#theme: Theme;
	#version = 0;
	#codeBlockIndent = "  ";
	#hyperlinks = false;
	readonly #listeners = new Set<() => void>();

	constructor(theme: Theme) {
		this.#theme = theme;
	}

	get current(): Theme {
		return this.#theme;
	}

	/** Bumped on every change: a component whose cached lines carry an older version renders again. */
	get version(): number {
		return this.#version;
	}

	set(theme: Theme): void {
		if (theme === this.#theme) return;
		this.#theme = theme;
		this.#version++;
		for (const listener of this.#listeners) listener();
	}

	/** pi's `markdown.codeBlockIndent`: the prefix of code block lines. A change redraws like a theme change. */
	setCodeBlockIndent(indent: string): void {
		if (indent === this.#codeBlockIndent) return;
		this.#codeBlockIndent = indent;
		this.#version++;
		for (const listener of this.#listeners) listener();
	}

	/**
	 * Whether the terminal shows OSC 8 hyperlinks: then a link whose text is its own https address is drawn as
	 * one (the launcher passes no other). A change redraws like a theme change.
	 */
	setHyperlinks(on: boolean): void {
		if (on === this.#hyperlinks) return;
		this.#hyperlinks = on;
		this.#version++;
		for (const listener of this.#listeners) listener();
	}

	onChange(listener: () => void): () => void {
		this.#listeners.add(listener);
		return () => this.#listeners.delete(listener);
	}

	selectListTheme(): SelectListTheme {
		return {
			selectedPrefix: (text) => this.current.fg("accent", text),
			selectedText: (text) => this.current.fg("accent", text),
			description: (text) => this.current.fg("muted", text),
			scrollInfo: (text) => this.current.fg("dim", text),
			noMatch: (text) => this.current.fg("dim", text),
		};
	}

	/** pi's settings list: the selected row's label and value in accent, other values muted, hints dim. */
	settingsListTheme(): SettingsListTheme {
		return {
			label: (text, selected) => (selected ? this.current.fg("accent", text) : text),
			value: (text, selected) => this.current.fg(selected ? "accent" : "muted", text),
			description: (text) => this.current.fg("dim", text),
			cursor: this.current.fg("accent", "→ "),
			hint: (text) => this.current.fg("dim", text),
		};
	}

	/** The editor's border takes the thinking level's color (pi), or bash mode's when the text starts with `!`. */
	editorTheme(border: () => { level: ThinkingLevel | undefined; bash: boolean }): EditorTheme {
		return {
			borderColor: (text) => {
				const { level, bash } = border();
				return this.current.fg(bash ? "bashMode" : level ? THINKING_TOKENS[level] : "borderMuted", text);
			},
			selectList: this.selectListTheme(),
		};
	}

	/** Code blocks are highlighted by lowlight into the `syntax*` tokens; unknown languages stay `mdCodeBlock`. */
	markdownTheme(): MarkdownTheme {
		const t = () => this.current;
		const highlightCode = (code: string, lang?: string) =>
			highlightLines(code, lang, t()) ?? code.split("\n").map((line) => t().fg("mdCodeBlock", line));
		return {
			heading: (text) => t().bold(t().fg("mdHeading", text)),
			link: (text) => (this.#hyperlinks ? linkedUrl(t().fg("mdLink", text)) : t().fg("mdLink", text)),
			linkUrl: (text) => t().fg("mdLinkUrl", text),
			code: (text) => t().fg("mdCode", text),
			codeBlock: (text) => t().fg("mdCodeBlock", text),
			codeBlockBorder: (text) => t().fg("mdCodeBlockBorder", text),
			quote: (text) => t().italic(t().fg("mdQuote", text)),
			quoteBorder: (text) => t().fg("mdQuoteBorder", text),
			hr: (text) => t().fg("mdHr", text),
			listBullet: (text) => t().fg("mdListBullet", text),
			bold: (text) => t().bold(text),
			italic: (text) => t().italic(text),
			strikethrough: (text) => t().strikethrough(text),
			underline: (text) => t().underline(text),
			highlightCode,
			codeBlockIndent: this.#codeBlockIndent,
		};
	}
}
