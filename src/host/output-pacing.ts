/**
 * The UI's output on its way to the terminal, paced to what the terminal takes. While the terminal is behind,
 * the UI's output is dropped whole until it has caught up, then the UI redraws (what a slow terminal shows is
 * the latest screen, not every screen in between). Output over the UI's budget (dropped by the sandbox) is told
 * to the person once a run, on the launcher's own screen.
 */
import { mebibytes } from "../protocol/sizes.ts";
import type { TerminalOutput } from "./terminal-output.ts";
import type { Notice } from "./trusted-ui.ts";

export interface PacingParts {
	readonly output: TerminalOutput;
	/** The UI's budget, for the person's note. */
	readonly outputCharsPerSecond: number;
	/** A notice on the launcher's own screen; resolves once the person closed it. */
	notify(notice: Notice): Promise<void>;
	/** No screen of the launcher's is up and the terminal is not lent out: the UI's screen is what shows. */
	uiOnScreen(): boolean;
	/** The UI draws its whole screen again. */
	redraw(): void;
	/** Runs `run` once the UI's budget is whole again after a drop (its window is a second of real time). */
	afterBudgetWhole?(run: () => void): void;
}

/** After the UI's output went over its budget, when its screen is redrawn (its budget is whole again). */
const BUDGET_WHOLE_AFTER_MS = 1000;

export function overBudgetNotice(charsPerSecond: number): Notice {
	return {
		title: "The UI wrote more than a terminal can take",
		lines: [
			`Its output went over ${mebibytes(charsPerSecond)} in one second; p2 dropped the rest and redraws the screen when you close this.`,
			"A UI that keeps doing so is broken or hostile. Ctrl+C three times within a second ends p2 whatever the UI does.",
		],
	};
}

export class OutputPacing {
	readonly #parts: PacingParts;
	#catchingUp = false;
	#told = false;
	#redrawSoon = false;

	constructor(parts: PacingParts) {
		this.#parts = parts;
	}

	/** The UI's filtered output, while its screen is what shows. */
	show(data: string): void {
		const { output } = this.#parts;
		if (this.#catchingUp || output.offer(data)) return;
		this.#catchingUp = true;
		void output.idle().then(() => {
			this.#catchingUp = false;
			this.#parts.redraw();
		});
	}

	/**
	 * The sandbox dropped some of the UI's output over its budget: its screen is redrawn once the budget is
	 * whole again (a redraw sooner would be dropped too), and after the person closed the note.
	 */
	overBudget(): void {
		const parts = this.#parts;
		if (!this.#told) {
			this.#told = true;
			void parts.notify(overBudgetNotice(parts.outputCharsPerSecond)).then(() => parts.redraw());
		}
		if (this.#redrawSoon) return;
		this.#redrawSoon = true;
		const later = parts.afterBudgetWhole ?? ((run: () => void) => setTimeout(run, BUDGET_WHOLE_AFTER_MS));
		later(() => {
			this.#redrawSoon = false;
			if (parts.uiOnScreen()) parts.redraw();
		});
	}
}
