import { Editor, type EditorOptions, type TUI, truncateToWidth, visibleWidth } from "@earendil-works/pi-tui";
import type { ThinkingLevel } from "../protocol/thinking-levels.ts";
import type { ThemeRef } from "./theme/theme-ref.ts";

const SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏";
export const SPINNER_MS = 80;

/** What the editor's top border shows while the agent works: `── ⠙ Working ───…` (pi). */
export interface Indicator {
	readonly text: string;
	/** Retries draw the spinner in `warning`. */
	readonly tone: "border" | "warning";
}

/**
 * pi's editor: pi-tui's Editor with the border in the thinking level's color (bash mode's for `!`), and the
 * working indicator embedded in the top border.
 */
export class ChatEditor extends Editor {
	#indicator: Indicator | undefined;
	#frame = 0;
	readonly #themeRef: ThemeRef;

	constructor(tui: TUI, theme: ThemeRef, level: () => ThinkingLevel | undefined, options?: EditorOptions) {
		super(
			tui,
			theme.editorTheme(() => ({ level: level(), bash: this?.getText().startsWith("!") ?? false })),
			options,
		);
		this.#themeRef = theme;
	}

	setIndicator(indicator: Indicator | undefined): void {
		this.#indicator = indicator;
	}

	/** Advances the spinner; the caller renders. */
	tick(): void {
		this.#frame = (this.#frame + 1) % SPINNER.length;
	}

	protected override renderTopBorder(width: number, hiddenLineCount: number): string {
		const indicator = this.#indicator;
		if (!indicator || hiddenLineCount > 0) return super.renderTopBorder(width, hiddenLineCount);
		const t = this.#themeRef.current;
		const spinner = SPINNER[this.#frame]!;
		const paint = (s: string) => this.borderColor(s);
		const spin = indicator.tone === "warning" ? t.fg("warning", spinner) : paint(spinner);
		const message = indicator.tone === "warning" ? t.fg("muted", indicator.text) : paint(indicator.text);
		const plain = `── ${spinner} ${indicator.text} `;
		if (visibleWidth(plain) >= width) return truncateToWidth(`${paint("── ")}${spin}`, width, "");
		return `${paint("── ")}${spin} ${message} ${paint("─".repeat(width - visibleWidth(plain)))}`;
	}
}
