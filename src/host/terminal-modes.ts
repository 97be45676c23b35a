import type { ModeObserver } from "./output-filter.ts";

/** Modes whose "on" is not the terminal's usual state: undone by writing `l`. Autowrap is the exception. */
const DEFAULT_ON = new Set([7, 25]);

/**
 * Every private mode the worker's filtered output changed, so the launcher can put the person's terminal back
 * exactly as it was (exit, crash, swap, suspend, launcher error) and re-apply the worker's modes after its own
 * screens.
 */
export class TerminalModes implements ModeObserver {
	#changed = new Map<number, boolean>();
	/** The cursor shape the worker set (DECSCUSR), undefined while it has set none. */
	#cursorStyle: number | undefined;

	privateMode(mode: number, enabled: boolean): void {
		this.#changed.set(mode, enabled);
	}

	cursorStyle(style: number): void {
		this.#cursorStyle = style === 0 ? undefined : style;
	}

	/** What the worker has set and not undone, in the order it set them. */
	active(): ReadonlyMap<number, boolean> {
		const out = new Map<number, boolean>();
		for (const [mode, on] of this.#changed) if (on !== DEFAULT_ON.has(mode)) out.set(mode, on);
		return out;
	}

	/**
	 * Undoes the worker's modes and writes the fixed reset: mouse and focus off, autowrap on, cursor shown in
	 * the terminal's own shape, synchronized output ended, SGR and scroll region reset, alternate screen left
	 * (when the worker is on it). Forgets what it undid.
	 */
	cleanup(): string {
		const out = this.lend();
		this.#changed.clear();
		this.#cursorStyle = undefined;
		return out;
	}

	/**
	 * The reset for good when the UI did not leave by itself (three Ctrl+C, a launcher error): as `cleanup`,
	 * and where a UI drew on the normal screen (pi's regular mode), the cursor is wherever its editor was: it
	 * goes to a new line below the screen's last row, so the shell's prompt does not write over the footer.
	 */
	abandon(): string {
		const drewOnNormalScreen = this.#changed.has(2026) && this.#changed.get(1049) !== true;
		return this.cleanup() + (drewOnNormalScreen ? "\x1b[999;1H\r\n" : "");
	}

	/** Undoes the worker's modes for a while (the terminal is lent out) and keeps them for `restore`. */
	lend(): string {
		let out = "";
		for (const [mode, on] of [...this.active()].reverse()) out += `\x1b[?${mode}${on ? "l" : "h"}`;
		// The terminal's own cursor shape (DECSCUSR 0) whether or not the worker changed it.
		out += "\x1b[0 q\x1b[?2026l\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?1004l\x1b[?7h\x1b[?25h\x1b[0m";
		// Leaving the alternate screen puts the cursor back where it was. On the normal screen (pi's regular
		// mode) the cursor stays below the transcript: the scroll region's reset, which homes it, is wrapped in a
		// save and restore, and the alternate screen is not "left" (that would restore a cursor never saved).
		return this.#changed.get(1049) === true ? `${out}\x1b[r\x1b[?1049l` : `${out}\x1b7\x1b[r\x1b8`;
	}

	/** Re-applies the worker's modes after a launcher screen drew on a reset terminal. */
	restore(): string {
		let out = "";
		for (const [mode, on] of this.active()) out += `\x1b[?${mode}${on ? "h" : "l"}`;
		if (this.#cursorStyle !== undefined) out += `\x1b[${this.#cursorStyle} q`;
		return out;
	}
}
