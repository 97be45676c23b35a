/**
 * The owner's model catalog: the server's models object, opened on first use and kept open (the commands,
 * the start's warnings and the header's scope line share it), and how many providers it has, for the footer.
 */
import type { GuestObjects } from "../../../guest/plugin.ts";
import type { ObjectRef } from "../../../protocol/object-client.ts";
import { type ModelInfo, type ModelsState, modelsContract } from "../contract.ts";

export class ModelCatalog {
	readonly #objects: GuestObjects;
	#ref: ObjectRef<typeof modelsContract> | undefined;
	#providerCount = 0;
	readonly #countListeners = new Set<(count: number) => void>();
	readonly #stateListeners = new Set<(state: ModelsState | undefined) => void>();

	constructor(objects: GuestObjects) {
		this.#objects = objects;
	}

	/** The catalog's object, opened now if it was not. */
	get ref(): ObjectRef<typeof modelsContract> {
		if (this.#ref) return this.#ref;
		const ref = this.#objects.open(modelsContract, {});
		this.#ref = ref;
		ref.onChange((state) => {
			for (const listener of [...this.#stateListeners]) listener(state);
			const count = new Set((state?.models ?? []).map((m) => m.provider)).size;
			if (count === this.#providerCount) return;
			this.#providerCount = count;
			for (const listener of [...this.#countListeners]) listener(count);
		});
		return ref;
	}

	/** The catalog's state without opening it (undefined before it is opened and has arrived). */
	get state(): ModelsState | undefined {
		return this.#ref?.state;
	}

	/** The models and the catalog's state, once it has arrived. */
	async models(): Promise<{ list: ModelInfo[]; state: ModelsState }> {
		const ref = this.ref;
		await ref.ready;
		const state = ref.state;
		if (!state) throw new Error("The server's model catalog is not available.");
		return { list: state.models, state };
	}

	/** The catalog's state changed (only once it is open). */
	onChange(listener: (state: ModelsState | undefined) => void): () => void {
		this.#stateListeners.add(listener);
		return () => this.#stateListeners.delete(listener);
	}

	/** How many providers have usable models: now, and on every change. */
	onProviderCount(listener: (count: number) => void): () => void {
		this.#countListeners.add(listener);
		listener(this.#providerCount);
		return () => this.#countListeners.delete(listener);
	}

	close(): void {
		this.#ref?.close();
	}
}
