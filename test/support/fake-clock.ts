import type { Clock } from "../../src/host/clock.ts";

/** A clock that moves only when the test says so; timers due by then run in order. */
export class FakeClock implements Clock {
	#now = 1_000_000;
	#timers = new Map<number, { at: number; run: () => void }>();
	#next = 1;

	now(): number {
		return this.#now;
	}

	setTimeout(run: () => void, ms: number): unknown {
		const id = this.#next++;
		this.#timers.set(id, { at: this.#now + Math.max(0, ms), run });
		return id;
	}

	clearTimeout(handle: unknown): void {
		this.#timers.delete(handle as number);
	}

	/** Moves time forward, running each timer that falls due on the way. */
	advance(ms: number): void {
		const until = this.#now + ms;
		for (;;) {
			let due: [number, { at: number; run: () => void }] | undefined;
			for (const entry of this.#timers) if (entry[1].at <= until && (!due || entry[1].at < due[1].at)) due = entry;
			if (!due) break;
			this.#timers.delete(due[0]);
			this.#now = Math.max(this.#now, due[1].at);
			due[1].run();
		}
		this.#now = until;
	}
}
