/**
 * One rate limit for every place that needs one: fixed windows of `windowMs`, a budget per key per window.
 * Used for the worker's output and frames, the terminal title, and join attempts per address.
 */
export class RateWindow<K = string> {
	readonly #windowMs: number;
	readonly #now: () => number;
	readonly #maxKeys: number;
	#window = Number.NaN;
	readonly #used = new Map<K, number>();
	readonly #reported = new Set<K>();

	/** At most `maxKeys` keys are tracked in one window; a key beyond them is refused (fails closed). */
	constructor(windowMs: number, options: { now?: () => number; maxKeys?: number } = {}) {
		this.#windowMs = windowMs;
		this.#now = options.now ?? (() => performance.now());
		this.#maxKeys = options.maxKeys ?? 10_000;
	}

	/** Takes `amount` of `limit` for `key` in this window; false (and nothing taken) when it would exceed it. */
	take(key: K, amount: number, limit: number): boolean {
		this.#roll();
		const before = this.#used.get(key);
		if (before === undefined && this.#used.size >= this.#maxKeys) return false;
		const used = (before ?? 0) + amount;
		if (used > limit) return false;
		this.#used.set(key, used);
		return true;
	}

	/** True the first time in this window it is asked for `key`: say a refusal once per window. */
	firstRefusal(key: K): boolean {
		this.#roll();
		if (this.#reported.has(key)) return false;
		this.#reported.add(key);
		return true;
	}

	/** Milliseconds until the current window ends (and every budget is whole again). */
	untilNext(): number {
		this.#roll();
		return (this.#window + 1) * this.#windowMs - this.#now();
	}

	#roll(): void {
		const window = Math.floor(this.#now() / this.#windowMs);
		if (window === this.#window) return;
		this.#window = window;
		this.#used.clear();
		this.#reported.clear();
	}
}
