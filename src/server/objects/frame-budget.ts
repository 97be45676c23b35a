/** How many frames a client may send: a token bucket refilled at `perSecond`, holding at most `burst`. */
export interface FrameRate {
	readonly perSecond: number;
	readonly burst: number;
}

/** Characters of a frame's text that cost one more token: a megabyte of JSON costs the server more than a line. */
export const CHARS_PER_TOKEN = 16 * 1024;

/** Tokens a frame of `chars` characters (or bytes) costs; `cap` bounds it (a frame refused for its size alone). */
export function frameCost(chars: number, cap: number): number {
	return 1 + Math.floor(Math.min(chars, cap) / CHARS_PER_TOKEN);
}

/**
 * What a frame's cost meets: `taken`; `dropped` (the budget is spent, the frame is not handled); `exhausted`
 * (dropped, and the sender went on long enough past an empty budget that its connection is to be closed).
 */
export type Spent = "taken" | "dropped" | "exhausted";

/**
 * One sender's frames. Without `overdraft` a frame past an empty budget is only dropped (an owner's connection:
 * never closed for its pace). With it, a dropped frame is charged too, down to `-overdraft`: a sender that goes
 * on at full speed however many it is refused reaches it, and is told `exhausted` once; the budget then starts
 * again from empty.
 */
export class FrameBudget {
	readonly #rate: FrameRate;
	readonly #overdraft: number | undefined;
	readonly #now: () => number;
	#tokens: number;
	#last: number;

	constructor(rate: FrameRate, options: { overdraft?: number; now?: () => number } = {}) {
		this.#rate = rate;
		this.#overdraft = options.overdraft;
		this.#now = options.now ?? (() => performance.now());
		this.#tokens = rate.burst;
		this.#last = this.#now();
	}

	get rate(): FrameRate {
		return this.#rate;
	}

	spend(cost: number): Spent {
		this.#refill();
		if (this.#tokens >= cost) {
			this.#tokens -= cost;
			return "taken";
		}
		if (this.#overdraft === undefined) return "dropped";
		this.#tokens -= cost;
		if (this.#tokens > -this.#overdraft) return "dropped";
		this.#tokens = 0;
		return "exhausted";
	}

	/** Whether the budget is whole again: one kept for nobody's connection may be forgotten. */
	whole(): boolean {
		this.#refill();
		return this.#tokens >= this.#rate.burst;
	}

	#refill(): void {
		const now = this.#now();
		this.#tokens = Math.min(this.#rate.burst, this.#tokens + ((now - this.#last) / 1000) * this.#rate.perSecond);
		this.#last = now;
	}
}

/**
 * The guests' budgets: one per principal, however many connections they open, kept while any is open or the
 * budget is not yet whole again (a reconnect does not refill it).
 */
export class GuestBudgets {
	readonly #held = new Map<string, { readonly budget: FrameBudget; holders: number }>();

	/** The budget of guest `id` for one more of their connections; `release(id)` when it closes. */
	hold(id: string, rate: FrameRate): FrameBudget {
		this.#forgetWhole();
		let held = this.#held.get(id);
		if (!held) {
			held = { budget: new FrameBudget(rate, { overdraft: rate.burst }), holders: 0 };
			this.#held.set(id, held);
		}
		held.holders++;
		return held.budget;
	}

	release(id: string): void {
		const held = this.#held.get(id);
		if (!held) return;
		held.holders--;
		if (held.holders <= 0 && held.budget.whole()) this.#held.delete(id);
	}

	/** How many guests' budgets are kept (for tests). */
	get size(): number {
		return this.#held.size;
	}

	#forgetWhole(): void {
		for (const [id, held] of this.#held) if (held.holders <= 0 && held.budget.whole()) this.#held.delete(id);
	}
}
