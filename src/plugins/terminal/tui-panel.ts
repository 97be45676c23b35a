/**
 * The terminal panel in the editor's place: a title, the shell's screen as the emulator draws it (cells and
 * their colors only), and a hint. While it has the keys every key goes to the shell, Esc and Ctrl+C included;
 * Ctrl+] gives them back to the editor, and Shift+PgUp/PgDn scroll back through what scrolled off.
 */
import { type Component, type Focusable, matchesKey, truncateToWidth } from "@earendil-works/pi-tui";
import { visibleText } from "../../ui/text.ts";
import type { ThemeRef } from "../../ui/theme/theme-ref.ts";
import { MAX_COLS, MAX_ROWS, type TerminalSize, type TerminalState } from "./contract.ts";
import type { Emulator } from "./tui-emulator.ts";
import { keyBytes } from "./tui-keys.ts";
import { screenLines } from "./tui-screen.ts";

/** The key that leaves the panel (the shell never gets it): telnet's and many consoles' escape key. */
export const LEAVE_KEY = "ctrl+]";
/** Rows of the panel that are not the screen: rules, title and hint. */
const CHROME_ROWS = 4;

export interface PanelOptions {
	/** The terminal object's state now (undefined while it is being opened). */
	state(): TerminalState | undefined;
	/** Why there is no terminal (the session closed, the person may not use it), or undefined. */
	unavailable(): string | undefined;
	/** How many rows the panel may take. */
	height(): number;
	/** Keys for the shell. */
	type(data: string): void;
	/** A new shell, of this size (none runs). */
	start(size: TerminalSize): void;
	/** The panel's size changed: the shell's terminal follows it. */
	resize(size: TerminalSize): void;
	leave(): void;
	requestRender(): void;
}

export class TerminalPanel implements Component, Focusable {
	/** Page keys and the rest are the shell's, not the transcript's. */
	readonly capturesViewportInput = true;
	focused = false;
	readonly #theme: ThemeRef;
	readonly #emulator: Emulator;
	readonly #options: PanelOptions;
	#scrolledBack = 0;
	#size: TerminalSize | undefined;
	/** The screen as last drawn, and what it was drawn from: a key that changed nothing costs no drawing. */
	#drawn: { key: string; lines: string[] } | undefined;

	constructor(theme: ThemeRef, emulator: Emulator, options: PanelOptions) {
		this.#theme = theme;
		this.#emulator = emulator;
		this.#options = options;
	}

	invalidate(): void {}

	/** The screen's size for a panel this wide. */
	#sizeFor(width: number): TerminalSize {
		const rows = Math.max(3, Math.min(MAX_ROWS, this.#options.height() - CHROME_ROWS));
		return { cols: Math.max(10, Math.min(MAX_COLS, width)), rows };
	}

	render(width: number): string[] {
		const t = this.#theme.current;
		const state = this.#options.state();
		const size = this.#sizeFor(width);
		// The shell's size follows the panel's when the panel's changes (the latest panel wins, as in tmux).
		if (this.#size?.cols !== size.cols || this.#size?.rows !== size.rows) {
			this.#size = size;
			if (state?.status === "running" && (state.cols !== size.cols || state.rows !== size.rows))
				this.#options.resize(size);
		}
		const out = [t.rule(width), truncateToWidth(this.#title(state), width, "")];
		const term = this.#emulator.terminal;
		const problem = this.#options.unavailable();
		let body: string[];
		if (problem) body = [t.fg("warning", ` ${visibleText(problem, false)}`)];
		else if (!state || !term) body = [t.fg("dim", " Connecting…")];
		else body = this.#screen(width);
		for (let i = 0; i < size.rows; i++) out.push(body[i] ?? "");
		out.push(truncateToWidth(` ${t.fg("dim", this.#hint(state))}`, width, ""), t.rule(width));
		return out;
	}

	#screen(width: number): string[] {
		const term = this.#emulator.terminal;
		if (!term) return [];
		const key = `${this.#emulator.version} ${width} ${this.focused} ${this.#scrolledBack}`;
		if (this.#drawn?.key !== key) {
			this.#drawn = {
				key,
				lines: screenLines(term, width, { cursor: this.focused, scrolledBack: this.#scrolledBack }),
			};
		}
		return this.#drawn.lines;
	}

	#title(state: TerminalState | undefined): string {
		const t = this.#theme.current;
		const name = ` ${t.bold(t.fg("accent", "Terminal"))}`;
		if (!state) return name;
		const size = t.fg("dim", `  ${state.cols}×${state.rows}`);
		const back = this.#scrolledBack > 0 ? t.fg("warning", `  scrolled back ${this.#scrolledBack} lines`) : "";
		switch (state.status) {
			case "running":
				return `${name}${size}${back}`;
			case "exited": {
				const code = state.exitCode === null ? "" : ` with code ${state.exitCode}`;
				const why = state.error ? `: ${visibleText(state.error, false)}` : "";
				return `${name}${t.fg("muted", `  the shell exited${code}${why}`)}`;
			}
			case "failed":
				return `${name}${t.fg("error", `  the shell could not start: ${visibleText(state.error ?? "", false)}`)}`;
			case "none":
				return `${name}${t.fg("dim", "  starting…")}`;
		}
	}

	#hint(state: TerminalState | undefined): string {
		const leave = `${LEAVE_KEY} back to the editor`;
		if (state?.status === "exited" || state?.status === "failed") return `enter new shell  escape or ${leave}`;
		return `${leave}  shift+pgup/pgdn scroll back  /terminal returns`;
	}

	handleInput(data: string): void {
		if (matchesKey(data, LEAVE_KEY)) return this.#options.leave();
		const state = this.#options.state();
		if (!state || this.#options.unavailable()) {
			if (matchesKey(data, "escape")) this.#options.leave();
			return;
		}
		if (state.status !== "running") {
			if (matchesKey(data, "escape")) return this.#options.leave();
			if (matchesKey(data, "enter")) this.#options.start(this.#size ?? { cols: state.cols, rows: state.rows });
			return;
		}
		const page = Math.max(1, state.rows - 1);
		if (matchesKey(data, "shift+pageUp")) return this.#scroll(page);
		if (matchesKey(data, "shift+pageDown")) return this.#scroll(-page);
		const bytes = keyBytes(data, this.#emulator.modes());
		if (!bytes) return;
		this.#scroll(-this.#scrolledBack);
		this.#options.type(bytes);
	}

	#scroll(lines: number): void {
		const room = this.#emulator.terminal?.buffer.active.baseY ?? 0;
		this.#scrolledBack = Math.max(0, Math.min(room, this.#scrolledBack + lines));
		this.#options.requestRender();
	}

	/** The size asked for last (for a new shell). */
	get size(): TerminalSize | undefined {
		return this.#size;
	}

	/** The size for a panel this wide, before it was drawn (a first shell). */
	sizeFor(width: number): TerminalSize {
		return this.#sizeFor(width);
	}
}
