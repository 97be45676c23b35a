/**
 * The launcher's own screen for consent (seed 3.3): drawn on a reset terminal, with only what the launcher
 * knows and the exact data, and answered by keys that never reach the worker. While it is up the launcher
 * forwards no input and discards the worker's output; the worker redraws when it closes.
 */
import { matchesKey } from "@earendil-works/pi-tui/dist/keys.js";

export type ConsentAnswer = "yes" | "no" | "withdrawn";

export interface ConsentRequest {
	/** The server, from the launcher's own URL. */
	readonly origin: string;
	readonly action: string;
	/** Launcher-known facts: `File: …`. */
	readonly facts: readonly string[];
	/** The data itself (a diff, a URL, a text), shown as data. */
	readonly preview: readonly string[];
}

/** Control characters made visible: the worker's data can show, never instruct the terminal. */
export function visibleControls(text: string): string {
	return text.replace(/[\x00-\x1f\x7f-\x9f]/g, (c) => {
		const code = c.charCodeAt(0);
		return code < 0x20 ? String.fromCharCode(0x2400 + code) : code === 0x7f ? "␡" : "�";
	});
}

/** A confirmation counts only this long after the screen appeared (type-ahead is not consent). */
export const CONFIRM_AFTER_MS = 400;

/** A question nobody answers is withdrawn after this long: consent given later is not consent to what was asked then. */
export const CONSENT_EXPIRES_MS = 5 * 60_000;

const RESET = "\x1b[?2026l\x1b[0m\x1b[r\x1b[?25h\x1b[2J\x1b[H";

export class ConsentScreen {
	readonly #write: (data: string) => void;
	readonly #size: () => { columns: number; rows: number };
	readonly #expiresAfterMs: number;
	#active:
		| {
				request: ConsentRequest;
				scroll: number;
				shownAt: number;
				expiry: ReturnType<typeof setTimeout>;
				done: (answer: ConsentAnswer) => void;
		  }
		| undefined;

	constructor(
		write: (data: string) => void,
		size: () => { columns: number; rows: number },
		options: { expiresAfterMs?: number } = {},
	) {
		this.#write = write;
		this.#size = size;
		this.#expiresAfterMs = options.expiresAfterMs ?? CONSENT_EXPIRES_MS;
	}

	get active(): boolean {
		return this.#active !== undefined;
	}

	/**
	 * Shows the request and resolves with the person's answer: Enter or y confirms; Escape, n or Ctrl+C cancel;
	 * "withdrawn" when the launcher ended the question (the worker went away or moved to another session) or
	 * nobody answered it in time.
	 */
	confirm(request: ConsentRequest): Promise<ConsentAnswer> {
		if (this.#active) return Promise.resolve("no");
		return new Promise((resolve) => {
			const expiry = setTimeout(() => this.cancel(), this.#expiresAfterMs);
			this.#active = { request, scroll: 0, shownAt: Date.now(), expiry, done: resolve };
			this.draw();
		});
	}

	/** Every key while active; the launcher forwards nothing. */
	input(data: string): void {
		const active = this.#active;
		if (!active) return;
		if (matchesKey(data, "enter") || matchesKey(data, "y") || matchesKey(data, "shift+y")) {
			// Keys typed before the screen could be read (an Enter that ended a message) confirm nothing.
			if (Date.now() - active.shownAt < CONFIRM_AFTER_MS) return;
			return this.#finish("yes");
		}
		if (["escape", "ctrl+c", "n", "shift+n"].some((key) => matchesKey(data, key as "escape"))) {
			return this.#finish("no");
		}
		if (matchesKey(data, "down") || matchesKey(data, "pageDown")) active.scroll++;
		else if (matchesKey(data, "up") || matchesKey(data, "pageUp")) active.scroll = Math.max(0, active.scroll - 1);
		else return;
		this.draw();
	}

	/** Ends the interaction without consent (the worker went away, the launcher is closing). */
	cancel(): void {
		if (this.#active) this.#finish("withdrawn");
	}

	draw(): void {
		const active = this.#active;
		if (!active) return;
		const { columns, rows } = this.#size();
		const fit = (text: string) => visibleControls(text).slice(0, Math.max(1, columns - 1));
		const { request } = active;
		const head = [
			`\x1b[7m${fit(" p2 launcher · on this computer · not the server's screen ").padEnd(columns)}\x1b[0m`,
			"",
			fit(`Server: ${request.origin}`),
			fit(`Action: ${request.action}`),
			...request.facts.map(fit),
			"",
		];
		const foot = ["", fit("Enter or y: confirm · Escape or n: cancel · ↑↓ scroll")];
		const room = Math.max(1, rows - head.length - foot.length);
		const maxScroll = Math.max(0, request.preview.length - room);
		active.scroll = Math.min(active.scroll, maxScroll);
		const body = request.preview.slice(active.scroll, active.scroll + room).map((line) => {
			const shown = fit(line);
			return line.startsWith("+")
				? `\x1b[32m${shown}\x1b[0m`
				: line.startsWith("-")
					? `\x1b[31m${shown}\x1b[0m`
					: shown;
		});
		if (maxScroll > 0)
			foot[0] = fit(`(${active.scroll + 1}–${active.scroll + body.length} of ${request.preview.length})`);
		this.#write(RESET + [...head, ...body, ...foot].join("\r\n"));
	}

	#finish(answer: ConsentAnswer): void {
		const active = this.#active;
		this.#active = undefined;
		if (active) clearTimeout(active.expiry);
		this.#write("\x1b[0m\x1b[2J\x1b[H");
		active?.done(answer);
	}
}
