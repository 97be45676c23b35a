import { makeSpareStore, SessionStore, type SessionStoreOptions, takeSpareStore } from "./session-store.ts";

export interface SessionStoresOptions extends SessionStoreOptions {
	/** A store nobody holds and nobody used for this long is closed. Default 5 minutes. */
	readonly idleMs?: number;
	/** How often idle stores are looked for. Default a minute (or idleMs, when shorter). */
	readonly sweepMs?: number;
	readonly now?: () => number;
	/** The session's catalog row, for a store that does not keep its own copy yet (made before it did). */
	readonly describe?: (sessionId: string) => unknown;
	/** How long after a spare store was taken the next is made (see `keepSpare`). Default 2 s. */
	readonly spareRefillMs?: number;
}

interface Slot {
	store: SessionStore;
	holds: number;
	lastUsed: number;
}

/**
 * Opens session stores on first use and closes idle ones, so memory follows the conversations in use rather
 * than all history. `get` is for short use (within one call); whoever keeps a store across awaits or events,
 * like a live conversation, takes a `hold` so it is not closed under them.
 */
export class SessionStores {
	readonly dataDir: string;
	#options: SessionStoresOptions;
	#idleMs: number;
	#now: () => number;
	#slots = new Map<string, Slot>();
	#timer: ReturnType<typeof setInterval>;
	#closed = false;
	/** The spare store's file, when one is ready. */
	#spare: string | undefined;
	#refill: ReturnType<typeof setTimeout> | undefined;
	#keepingSpare = false;

	constructor(dataDir: string, options: SessionStoresOptions = {}) {
		this.dataDir = dataDir;
		this.#options = options;
		this.#idleMs = options.idleMs ?? 5 * 60_000;
		this.#now = options.now ?? Date.now;
		this.#timer = setInterval(() => this.sweep(), options.sweepMs ?? Math.min(60_000, this.#idleMs));
		this.#timer.unref?.();
	}

	/** The session's store, opened (and recovered) when it is not open yet. */
	get(sessionId: string): SessionStore {
		const slot = this.#slot(sessionId);
		slot.lastUsed = this.#now();
		return slot.store;
	}

	/** Keeps the store open until `release` is called (once; later calls do nothing). */
	hold(sessionId: string): { store: SessionStore; release: () => void } {
		const slot = this.#slot(sessionId);
		slot.holds++;
		slot.lastUsed = this.#now();
		let released = false;
		return {
			store: slot.store,
			release: () => {
				if (released) return;
				released = true;
				slot.holds--;
				slot.lastUsed = this.#now();
			},
		};
	}

	isOpen(sessionId: string): boolean {
		return this.#slots.has(sessionId);
	}

	get openCount(): number {
		return this.#slots.size;
	}

	/** Closes one store now, e.g. before its files are copied. Refused while someone holds it. */
	closeStore(sessionId: string): boolean {
		const slot = this.#slots.get(sessionId);
		if (!slot) return false;
		if (slot.holds > 0) throw new Error(`session store ${sessionId} is held; release it before closing`);
		this.#slots.delete(sessionId);
		slot.store.close();
		return true;
	}

	/** Closes the stores nobody holds that were idle for `idleMs`; returns how many it closed. */
	sweep(): number {
		const cutoff = this.#now() - this.#idleMs;
		let closed = 0;
		for (const [id, slot] of this.#slots) {
			if (slot.holds > 0 || slot.lastUsed > cutoff) continue;
			this.#slots.delete(id);
			slot.store.close();
			closed++;
		}
		return closed;
	}

	closeAll(): void {
		this.#closed = true;
		clearInterval(this.#timer);
		clearTimeout(this.#refill);
		for (const slot of this.#slots.values()) slot.store.close();
		this.#slots.clear();
	}

	#slot(sessionId: string): Slot {
		if (this.#closed) throw new Error("the session stores are closed");
		let slot = this.#slots.get(sessionId);
		if (!slot) {
			this.#takeSpare(sessionId);
			// A damaged or emptied file is moved aside and reported; the session goes on in a new store.
			const store = SessionStore.open(this.dataDir, sessionId, { replaceDamaged: true, ...this.#options });
			this.#keepMeta(store);
			slot = { store, holds: 0, lastUsed: this.#now() };
			this.#slots.set(sessionId, slot);
		}
		return slot;
	}

	/**
	 * From now on, one new, empty store is kept ready for the next new session: made now, and a while after each
	 * one is taken, not on the way to a session's first frame. The server asks when its first client connects,
	 * so making one delays neither its start nor that client's first requests.
	 */
	keepSpare(): void {
		if (this.#keepingSpare || this.#closed) return;
		this.#keepingSpare = true;
		this.#refillSpare(0);
	}

	/** A session without a store yet (a new one) gets the spare, if one is ready. */
	#takeSpare(sessionId: string): void {
		const spare = this.#spare;
		if (!spare || !takeSpareStore(spare, this.dataDir, sessionId)) return;
		this.#spare = undefined;
		this.#refillSpare(this.#options.spareRefillMs ?? 2000);
	}

	#refillSpare(afterMs: number): void {
		clearTimeout(this.#refill);
		this.#refill = setTimeout(() => {
			this.#refill = undefined;
			if (this.#closed) return;
			try {
				this.#spare = makeSpareStore(this.dataDir);
			} catch (error) {
				// Not needed: a new session makes its own store, as before.
				console.error("a spare session store could not be made:", error);
			}
		}, afterMs);
		this.#refill.unref?.();
	}

	/** Gives a store without its own copy of its catalog row that copy, so the catalog can be rebuilt from it. */
	#keepMeta(store: SessionStore): void {
		try {
			if (store.meta() !== null) return;
			const record = this.#options.describe?.(store.sessionId);
			if (record != null) store.setMeta(record);
		} catch (error) {
			console.error(`session ${store.sessionId}: its catalog record could not be kept with it:`, error);
		}
	}
}
