/**
 * Inert stand-ins for web platform classes that libraries in the bundle (arktype's keywords) name at load
 * time. The sandbox has no files, requests or URLs to give; these only make `instanceof` checks answer false.
 * Imported first by the entry, so it runs before those libraries.
 */
const g = globalThis as Record<string, unknown>;
for (const name of ["Blob", "File", "FormData", "Headers", "Request", "Response", "URL"]) {
	if (typeof g[name] !== "function") {
		g[name] = { [name]: class {} }[name];
	}
}

/**
 * pi-tui cancels stale autocomplete requests with an AbortController, which the sandbox does not provide. A
 * small pure one (no timers, no host objects) does what pi-tui needs: `signal.aborted`, `reason`, abort events.
 */
if (typeof g.AbortController !== "function") {
	class GuestAbortSignal {
		aborted = false;
		reason: unknown = undefined;
		onabort: ((event: { type: "abort" }) => void) | null = null;
		readonly #listeners = new Set<(event: { type: "abort" }) => void>();
		addEventListener(type: string, listener: (event: { type: "abort" }) => void): void {
			if (type === "abort") this.#listeners.add(listener);
		}
		removeEventListener(type: string, listener: (event: { type: "abort" }) => void): void {
			if (type === "abort") this.#listeners.delete(listener);
		}
		throwIfAborted(): void {
			if (this.aborted) throw this.reason;
		}
		/** @internal */
		fire(reason: unknown): void {
			if (this.aborted) return;
			this.aborted = true;
			this.reason = reason;
			const event = { type: "abort" as const };
			this.onabort?.(event);
			for (const listener of [...this.#listeners]) listener(event);
		}
	}
	class GuestAbortController {
		readonly signal = new GuestAbortSignal();
		abort(reason: unknown = new Error("aborted")): void {
			this.signal.fire(reason);
		}
	}
	g.AbortController = GuestAbortController;
	g.AbortSignal = GuestAbortSignal;
}
