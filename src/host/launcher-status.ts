import type { StatusAction } from "../protocol/channel.ts";
import { RateWindow } from "../protocol/rate-window.ts";
import { isFormat } from "./visible-text.ts";

const MAX_TITLE = 80;
const PER_SECOND = 4;

/** Strips controls and bounds the length: what a server-written title may be. */
export function sanitizeTitle(text: string): string {
	let out = "";
	for (const ch of text) {
		const code = ch.codePointAt(0)!;
		if (code < 0x20 || (code >= 0x7f && code < 0xa0) || (code >= 0x2028 && code <= 0x202e) || isFormat(ch)) continue;
		out += ch;
		if ([...out].length >= MAX_TITLE) break;
	}
	return out;
}

/**
 * Title, progress and program status ("N" actions, design: launcher actions): sanitized, at most four per second per kind (the
 * latest throttled value follows), written by the launcher itself, and cleared on exit.
 */
export class LauncherStatus {
	#write: (data: string) => void;
	readonly #rate = new RateWindow<StatusAction["kind"]>(1000);
	#latest = new Map<string, StatusAction>();
	#timers = new Map<string, ReturnType<typeof setTimeout>>();
	#touched = new Set<string>();

	constructor(write: (data: string) => void) {
		this.#write = write;
	}

	apply(action: StatusAction): void {
		if (!this.#rate.take(action.kind, 1, PER_SECOND)) {
			// Over the budget: the latest value is written when the next window opens.
			this.#latest.set(action.kind, action);
			if (!this.#timers.has(action.kind)) {
				this.#timers.set(
					action.kind,
					setTimeout(
						() => {
							this.#timers.delete(action.kind);
							const latest = this.#latest.get(action.kind);
							this.#latest.delete(action.kind);
							if (latest) this.apply(latest);
						},
						Math.max(1, this.#rate.untilNext()),
					),
				);
			}
			return;
		}
		this.#touched.add(action.kind);
		this.#write(encode(action));
	}

	/** Clears what the worker set, on exit or before another worker takes over. */
	clear(): string {
		for (const timer of this.#timers.values()) clearTimeout(timer);
		this.#timers.clear();
		this.#latest.clear();
		let out = "";
		if (this.#touched.has("title")) out += "\x1b]0;\x07";
		if (this.#touched.has("progress")) out += "\x1b]9;4;0;\x07";
		this.#touched.clear();
		return out;
	}
}

function encode(action: StatusAction): string {
	switch (action.kind) {
		case "title":
			return `\x1b]0;${sanitizeTitle(action.text)}\x07`;
		case "progress":
			return action.active ? "\x1b]9;4;3;\x07" : "\x1b]9;4;0;\x07";
		case "programStatus":
			// Written only where the terminal has said it understands it; not yet negotiated, so nothing.
			return "";
	}
}
