/**
 * What plugins offer one another in the guest, by name. The core declares none: a plugin that offers a
 * service adds its entry to `GuestServices` by declaration merging, next to its own code, so the core never
 * names a plugin and no plugin imports another. A service may be absent (its plugin is not in the list).
 */
// biome-ignore lint/suspicious/noEmptyInterface: plugins add their entries by declaration merging.
export interface GuestServices {}

export type ServiceName = keyof GuestServices;

export class Services {
	readonly #provided = new Map<string, unknown>();
	readonly #waiting = new Map<string, ((service: never) => void)[]>();

	/** A second provider for the same name is refused: two plugins offering one service is a mistake. */
	provide<K extends ServiceName>(name: K, service: GuestServices[K]): () => void {
		if (this.#provided.has(name)) throw new Error(`${name} is already provided`);
		this.#provided.set(name, service);
		const waiting = this.#waiting.get(name) ?? [];
		this.#waiting.delete(name);
		for (const use of waiting) use(service as never);
		return () => {
			if (this.#provided.get(name) === service) this.#provided.delete(name);
		};
	}

	get<K extends ServiceName>(name: K): GuestServices[K] | undefined {
		return this.#provided.get(name) as GuestServices[K] | undefined;
	}

	/** Runs `use` with the service as soon as it is provided: now, or when a later plugin provides it. */
	use<K extends ServiceName>(name: K, use: (service: GuestServices[K]) => void): void {
		const service = this.get(name);
		if (service !== undefined) return use(service);
		this.#waiting.set(name, [...(this.#waiting.get(name) ?? []), use as (service: never) => void]);
	}
}
