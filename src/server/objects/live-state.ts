import { applyPatch, type PatchOp } from "../../protocol/patch.ts";

export type PatchListener = (opsJson: string) => void;

/** Runs `flush` once, a little later: how held text waits to be sent (tests pass their own). */
export type FlushSchedule = (flush: () => void) => void;

/**
 * How long streamed text is held before it is sent: one frame of a 60 Hz screen. A streamed answer grows by a
 * few characters per model token; sent one by one, every token costs each client a frame to parse, check,
 * apply and render. Held this long, the tokens of a frame travel as one `append`.
 */
export const STREAM_FRAME_MS = 16;

const laterByAFrame: FlushSchedule = (flush) => {
	setTimeout(flush, STREAM_FRAME_MS).unref?.();
};

const samePath = (a: readonly (string | number)[], b: readonly (string | number)[]) =>
	a.length === b.length && a.every((segment, i) => segment === b[i]);

/**
 * A replicated state on the server: one copy, many subscribers. Each update is serialized once and
 * handed to every subscriber as JSON, so fan-out costs a string concatenation per client.
 *
 * Updates that only append text are held for up to a frame and merged (appends to the same place become one);
 * any other update, and a new subscriber, first sends what is held, so every subscriber sees the updates in
 * their order and a snapshot never overlaps a patch. The state itself changes at once.
 */
export class LiveState<S> {
	#state: S;
	#listeners = new Set<PatchListener>();
	#held: Extract<PatchOp, { op: "append" }>[] = [];
	#flushScheduled = false;
	readonly #schedule: FlushSchedule;

	constructor(initial: S, options: { schedule?: FlushSchedule } = {}) {
		this.#state = initial;
		this.#schedule = options.schedule ?? laterByAFrame;
	}

	get state(): S {
		return this.#state;
	}

	get subscribers(): number {
		return this.#listeners.size;
	}

	update(ops: readonly PatchOp[]): void {
		if (ops.length === 0) return;
		this.#state = applyPatch(this.#state, ops);
		if (this.#listeners.size === 0) {
			this.#held = [];
			return;
		}
		if (ops.every((op) => op.op === "append")) {
			this.#hold(ops as Extract<PatchOp, { op: "append" }>[]);
			return;
		}
		this.flush();
		this.#send(ops);
	}

	/** Sends what is held now (before a result that follows from it, or when the frame is over). */
	flush(): void {
		if (this.#held.length === 0) return;
		const held = this.#held;
		this.#held = [];
		if (this.#listeners.size > 0) this.#send(held);
	}

	/** Returns the current state and subscribes in the same step, so no patch falls between them. */
	subscribe(listener: PatchListener): { state: S; unsubscribe: () => void } {
		this.flush();
		this.#listeners.add(listener);
		return { state: this.#state, unsubscribe: () => this.#listeners.delete(listener) };
	}

	#hold(ops: readonly Extract<PatchOp, { op: "append" }>[]): void {
		for (const op of ops) {
			const last = this.#held.at(-1);
			if (last && samePath(last.path, op.path)) {
				this.#held[this.#held.length - 1] = { op: "append", path: last.path, text: last.text + op.text };
			} else this.#held.push(op);
		}
		if (this.#flushScheduled) return;
		this.#flushScheduled = true;
		this.#schedule(() => {
			this.#flushScheduled = false;
			this.flush();
		});
	}

	#send(ops: readonly PatchOp[]): void {
		const json = JSON.stringify(ops);
		for (const listener of this.#listeners) listener(json);
	}
}
