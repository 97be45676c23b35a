/**
 * The launcher's questions to the UI (the text to copy, the message to edit): each answered once, by the
 * worker it was asked of, or with null when no answer came in time.
 */
import type { Clock } from "./clock.ts";
import type { GuestWorker } from "./worker-supervisor.ts";

/** How long the launcher waits for the UI's answer to a question of its own. */
const QUESTION_MS = 2000;

export class UiQuestions {
	readonly #clock: Clock;
	readonly #waiting = new Map<string, (text: string | null) => void>();
	#count = 0;

	constructor(clock: Clock) {
		this.#clock = clock;
	}

	ask(worker: GuestWorker, question: "copyText" | "editorText"): Promise<string | null> {
		return new Promise((resolve) => {
			const id = `q${++this.#count}`;
			this.#waiting.set(id, resolve);
			worker.sandbox.post({ kind: "ask", id, question });
			this.#clock.setTimeout(() => {
				if (this.#waiting.delete(id)) resolve(null);
			}, QUESTION_MS);
		});
	}

	/** The UI's answer; only the worker on screen is heard, and a question is answered once. */
	answer(id: string, text: string | null, current: boolean): void {
		if (current) this.#waiting.get(id)?.(text);
		this.#waiting.delete(id);
	}
}
