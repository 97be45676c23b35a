import type { ChatEntry } from "../contract.ts";

/** Versions count across histories, so a new history (another session) never repeats one of an old one. */
let versions = 0;

/**
 * Every committed entry the screen has seen, by seq, in order. The server's window slides forward during a
 * long session and older pages arrive on demand, but what the person has on screen never disappears or moves.
 * Committed entries do not change; one that comes again as a new object replaces the old in place.
 */
export class EntryHistory {
	readonly #entries: ChatEntry[] = [];
	readonly #bySeq = new Map<number, ChatEntry>();
	#version = ++versions;

	get entries(): readonly ChatEntry[] {
		return this.#entries;
	}

	/** Changes whenever the entries do (what is made from them is kept until then). */
	get version(): number {
		return this.#version;
	}

	get first(): ChatEntry | undefined {
		return this.#entries[0];
	}

	get last(): ChatEntry | undefined {
		return this.#entries.at(-1);
	}

	merge(entries: readonly ChatEntry[]): void {
		for (const entry of entries) {
			if (this.#bySeq.get(entry.seq) === entry) continue;
			this.#bySeq.set(entry.seq, entry);
			this.#version = ++versions;
			const last = this.#entries.at(-1);
			if (!last || entry.seq > last.seq) {
				this.#entries.push(entry);
				continue;
			}
			// Binary search: replace a known entry in place, or insert an older one where it belongs.
			let lo = 0;
			let hi = this.#entries.length;
			while (lo < hi) {
				const mid = (lo + hi) >> 1;
				if (this.#entries[mid]!.seq < entry.seq) lo = mid + 1;
				else hi = mid;
			}
			if (this.#entries[lo]?.seq === entry.seq) this.#entries[lo] = entry;
			else this.#entries.splice(lo, 0, entry);
		}
	}
}
