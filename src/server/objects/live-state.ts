import { applyPatch, type PatchOp } from "../../protocol/patch.ts";

export type PatchListener = (opsJson: string) => void;

/**
 * A replicated state on the server: one copy, many subscribers. Each update is serialized once and
 * handed to every subscriber as JSON, so fan-out costs a string concatenation per client.
 */
export class LiveState<S> {
	#state: S;
	#listeners = new Set<PatchListener>();

	constructor(initial: S) {
		this.#state = initial;
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
		if (this.#listeners.size === 0) return;
		const json = JSON.stringify(ops);
		for (const listener of this.#listeners) listener(json);
	}

	/** Returns the current state and subscribes in the same step, so no patch falls between them. */
	subscribe(listener: PatchListener): { state: S; unsubscribe: () => void } {
		this.#listeners.add(listener);
		return { state: this.#state, unsubscribe: () => this.#listeners.delete(listener) };
	}
}
