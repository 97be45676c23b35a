/**
 * What plugins offer one another on the server, by name. The core declares none: a plugin that offers a
 * service adds its entry to `ServerServices` by declaration merging, next to its own code, so the core never
 * names a plugin and no plugin imports another. A service may be absent (its plugin is not in the list).
 */
// biome-ignore lint/suspicious/noEmptyInterface: plugins add their entries by declaration merging.
export interface ServerServices {}

export type ServiceName = keyof ServerServices;

export class Services {
	readonly #provided = new Map<string, unknown>();

	/** A second provider for the same name is refused: two plugins offering one service is a mistake. */
	provide<K extends ServiceName>(name: K, service: ServerServices[K]): void {
		if (this.#provided.has(name)) throw new Error(`${name} is already provided`);
		this.#provided.set(name, service);
	}

	/** The service, or undefined while no plugin provides it. */
	get<K extends ServiceName>(name: K): ServerServices[K] | undefined {
		return this.#provided.get(name) as ServerServices[K] | undefined;
	}
}
