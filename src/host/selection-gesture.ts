/**
 * The mouse gesture that lets pi-tui's copy-on-select through without a consent screen (design: launcher actions): the
 * launcher itself saw, in the raw input, the left-button release that ended a drag or a double click, a moment
 * ago. Each such gesture allows one copy.
 */
const SGR_MOUSE = /\x1b\[<(\d+);\d+;\d+([Mm])/g;
const WINDOW_MS = 2000;
const MULTI_CLICK_MS = 500;

export class SelectionGesture {
	#pressedAt = 0;
	#lastPressAt = 0;
	#dragged = false;
	#multi = false;
	#endedAt: number | undefined;

	observe(data: string, now = Date.now()): void {
		for (const m of data.matchAll(SGR_MOUSE)) {
			const button = Number(m[1]);
			const release = m[2] === "m";
			const base = button & ~(4 | 8 | 16);
			if (!release && base === 0) {
				this.#multi = now - this.#lastPressAt < MULTI_CLICK_MS;
				this.#lastPressAt = now;
				this.#pressedAt = now;
				this.#dragged = false;
			} else if (!release && base === 32) {
				if (this.#pressedAt) this.#dragged = true;
			} else if (release && base === 0 && this.#pressedAt) {
				if (this.#dragged || this.#multi) this.#endedAt = now;
				this.#pressedAt = 0;
			}
		}
	}

	/** True once for a gesture that ended within the window. */
	take(now = Date.now()): boolean {
		const ended = this.#endedAt;
		this.#endedAt = undefined;
		return ended !== undefined && now - ended <= WINDOW_MS;
	}
}
