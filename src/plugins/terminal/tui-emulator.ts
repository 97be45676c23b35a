/**
 * The panel's terminal emulator (`@xterm/headless`, loaded when a panel first opens): fed the shell's output
 * from the terminal object's state, at the shell's size. Its answers to a program's queries are not sent back
 * (every holder's emulator would answer, and a program may not learn about the person's screen this way).
 */
import type { Terminal } from "@xterm/headless";
import type * as XtermHeadless from "../../ui/deferred/xterm-headless.ts";
import type { TerminalState } from "./contract.ts";

/** Lines kept above the page, to scroll back to. */
const SCROLLBACK = 2000;

type TerminalClass = typeof XtermHeadless.Terminal;
let loaded: TerminalClass | undefined;

/** The emulator's class: evaluated the first time (it is carried in the bundle as text). */
export function emulatorClass(): TerminalClass {
	loaded ??= (require("../../ui/deferred/xterm-headless.ts") as typeof XtermHeadless).Terminal;
	return loaded;
}

export class Emulator {
	readonly #Terminal: TerminalClass;
	readonly #changed: () => void;
	#term: Terminal | undefined;
	#shell = -1;
	/** Where in the shell's output the emulator has read to (counting what the server cut). */
	#fed = 0;
	/** Writes the emulator has not parsed yet: a resize waits for them (it would apply before them). */
	#parsing = 0;
	#size: { cols: number; rows: number } | undefined;
	#version = 0;

	/** `changed`: the screen changed (a write was parsed). */
	constructor(Terminal: TerminalClass, changed: () => void) {
		this.#Terminal = Terminal;
		this.#changed = changed;
	}

	get terminal(): Terminal | undefined {
		return this.#term;
	}

	/** Changes each time the screen may have changed (a drawing of it is good until then). */
	get version(): number {
		return this.#version;
	}

	#touched(): void {
		this.#version++;
		this.#changed();
	}

	/** Reads what the state has that the emulator has not; a new shell, or output it missed, starts it afresh. */
	follow(state: TerminalState): void {
		const end = state.dropped + state.output.length;
		if (!this.#term || state.shell !== this.#shell || this.#fed < state.dropped || this.#fed > end) {
			this.#term?.dispose();
			this.#term = new this.#Terminal({
				cols: state.cols,
				rows: state.rows,
				scrollback: SCROLLBACK,
				allowProposedApi: true,
			});
			this.#shell = state.shell;
			this.#fed = state.dropped;
			this.#parsing = 0;
			this.#version++;
		}
		const text = state.output.slice(this.#fed - state.dropped);
		const term = this.#term;
		if (text) {
			this.#fed = end;
			this.#parsing++;
			term.write(text, () => {
				this.#parsing--;
				if (term !== this.#term) return;
				this.#resizeWhenParsed();
				this.#touched();
			});
		}
		this.#size = { cols: state.cols, rows: state.rows };
		this.#resizeWhenParsed();
	}

	#resizeWhenParsed(): void {
		const term = this.#term;
		const size = this.#size;
		if (!term || !size || this.#parsing > 0) return;
		if (term.cols === size.cols && term.rows === size.rows) return;
		term.resize(size.cols, size.rows);
		this.#touched();
	}

	/** What the program asked of the keyboard: application cursor keys, bracketed paste. */
	modes(): { applicationCursorKeys: boolean; bracketedPaste: boolean } {
		const modes = this.#term?.modes;
		return {
			applicationCursorKeys: modes?.applicationCursorKeysMode ?? false,
			bracketedPaste: modes?.bracketedPasteMode ?? false,
		};
	}

	dispose(): void {
		this.#term?.dispose();
		this.#term = undefined;
		this.#version++;
	}
}
