/**
 * The UI bundle this server serves: made once, at the first request (or ahead of it), and again after a
 * failure; in development mode an owner may have it rebuilt from the sources.
 */
import type { DevBundle } from "./plugin.ts";

export interface GuestBundle {
	readonly source: string;
	readonly hash: string;
}

export class GuestBundleLoader {
	readonly #make: (() => Promise<GuestBundle>) | undefined;
	#bundle: Promise<GuestBundle> | undefined;

	constructor(make: (() => Promise<GuestBundle>) | undefined) {
		this.#make = make;
	}

	load(): Promise<GuestBundle> {
		if (this.#bundle) return this.#bundle;
		const make = this.#make ?? (() => Promise.reject(new Error("no guest bundle configured")));
		const bundle = make();
		this.#bundle = bundle;
		bundle.catch(() => {
			if (this.#bundle === bundle) this.#bundle = undefined;
		});
		return bundle;
	}

	/** Rebuilding for an owner (development mode): whether the bundle changed. */
	readonly dev: DevBundle = {
		rebuild: async () => {
			const before = this.#bundle ? await this.#bundle.catch(() => undefined) : undefined;
			this.#bundle = undefined;
			const after = await this.load();
			return { hash: after.hash, changed: after.hash !== before?.hash };
		},
	};
}
