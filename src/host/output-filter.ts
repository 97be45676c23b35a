/**
 * The launcher's streaming filter for everything the guest worker writes to the terminal.
 *
 * What passes: printable text, tab/newline/carriage return/backspace, SGR, cursor movement and style,
 * erase and insert/delete, scroll regions and scrolling, cursor save/restore, and the private modes pi-tui's
 * fullscreen renderer needs (mouse modes by the visitor's policy). Everything else is removed: every OSC
 * (clipboard, hyperlinks, titles, colors, notifications), DCS, APC, PM, SOS, 8-bit C1 controls, other C0
 * controls, and every sequence that makes the terminal answer (DSR, DA, DECRQM, DECRQSS, window reports,
 * kitty keyboard queries). Sequences split across chunks are handled; state is bounded.
 */

export type MousePolicy = "off" | "on" | "all";

/** Told about every private mode the filtered output sets or resets, so the launcher can undo them. */
export interface ModeObserver {
	privateMode(mode: number, enabled: boolean): void;
}

const ESC = 0x1b;
/** A CSI longer than this is not something pi-tui writes: it is dropped whole. */
const MAX_CSI = 64;

/** Private modes the worker may set: autowrap, cursor visibility, alternate screen, synchronized output. */
const BASE_MODES = new Set([7, 25, 1049, 2026]);
const MOUSE_MODES = new Set([1000, 1002, 1004, 1006]);
const ALL_MOTION = 1003;

/** CSI finals allowed without a prefix or intermediate: SGR, cursor, erase, edit, scroll, save/restore. */
const PLAIN_FINALS = new Set("mABCDEFGHfdeaJKXP@LMSTrsu`".split(""));

enum State {
	Ground,
	Escape,
	/** ESC followed by intermediates (e.g. `ESC ( B`): dropped through the final byte. */
	EscapeIntermediate,
	Csi,
	/** A CSI being dropped (too long or malformed): consume through the final byte. */
	CsiDrop,
	/** OSC, DCS, APC, PM, SOS: consumed through BEL (OSC) or ST, never emitted. */
	String,
	/** ESC seen inside a string: `\` ends it. */
	StringEscape,
}

export class OutputFilter {
	#state = State.Ground;
	#csi = "";
	/** A high surrogate that ended the previous chunk. */
	#pendingHigh = "";
	#mouse: MousePolicy;
	#observer: ModeObserver | undefined;

	constructor(options: { mouse?: MousePolicy; observer?: ModeObserver } = {}) {
		this.#mouse = options.mouse ?? "off";
		this.#observer = options.observer;
	}

	/** Filters one chunk. Never throws; an unfinished sequence waits for the next chunk. */
	write(chunk: string): string {
		let out = "";
		let run = 0; // start of the current run of plain text
		const s = this.#pendingHigh + chunk;
		this.#pendingHigh = "";
		const n = s.length;
		for (let i = 0; i < n; i++) {
			const c = s.charCodeAt(i);
			switch (this.#state) {
				case State.Ground: {
					if (c >= 0x20 && c < 0x7f) continue;
					if (c >= 0xa0) {
						if (c >= 0xd800 && c <= 0xdbff) {
							if (i === n - 1) {
								out += s.slice(run, i);
								this.#pendingHigh = s[i]!;
								return out;
							}
							const next = s.charCodeAt(i + 1);
							if (next >= 0xdc00 && next <= 0xdfff) {
								i++;
								continue;
							}
							// A lone high surrogate: drop it.
							out += s.slice(run, i);
							run = i + 1;
							continue;
						}
						if (c >= 0xdc00 && c <= 0xdfff) {
							out += s.slice(run, i);
							run = i + 1;
						}
						continue;
					}
					if (c === 0x0a || c === 0x0d || c === 0x09 || c === 0x08) continue;
					out += s.slice(run, i);
					run = i + 1;
					if (c === ESC) this.#state = State.Escape;
					else if (c === 0x9b) {
						// 8-bit CSI: dropped whole.
						this.#state = State.CsiDrop;
					} else if (c === 0x90 || c === 0x98 || c === 0x9d || c === 0x9e || c === 0x9f) {
						this.#state = State.String;
					}
					// Any other C0, DEL or C1 control is dropped.
					continue;
				}
				case State.Escape: {
					run = i + 1;
					if (c === 0x5b) {
						this.#state = State.Csi;
						this.#csi = "";
					} else if (c === 0x5d || c === 0x50 || c === 0x5f || c === 0x5e || c === 0x58) {
						this.#state = State.String;
					} else if (c === 0x37 || c === 0x38 || c === 0x4d || c === 0x44 || c === 0x45) {
						// DECSC, DECRC, reverse index, index, next line.
						out += `\x1b${s[i]}`;
						this.#state = State.Ground;
					} else if (c >= 0x20 && c <= 0x2f) {
						this.#state = State.EscapeIntermediate;
					} else if (c === ESC) {
						// ESC ESC: the first one is dropped, the second starts again.
					} else {
						// Other escapes (RIS, keypad modes, stray ST, controls) are dropped.
						this.#state = State.Ground;
					}
					continue;
				}
				case State.EscapeIntermediate: {
					run = i + 1;
					if (c >= 0x30 && c <= 0x7e) this.#state = State.Ground;
					else if (c === ESC) this.#state = State.Escape;
					else if (c < 0x20 || c > 0x7e) this.#state = State.Ground;
					continue;
				}
				case State.Csi: {
					run = i + 1;
					if (c >= 0x40 && c <= 0x7e) {
						out += this.#finishCsi(this.#csi, s[i]!);
						this.#state = State.Ground;
					} else if (c >= 0x20 && c <= 0x3f) {
						this.#csi += s[i];
						if (this.#csi.length > MAX_CSI) this.#state = State.CsiDrop;
					} else if (c === ESC) {
						this.#state = State.Escape;
					} else {
						// A control inside a CSI aborts it.
						this.#state = State.Ground;
					}
					continue;
				}
				case State.CsiDrop: {
					run = i + 1;
					if (c >= 0x40 && c <= 0x7e) this.#state = State.Ground;
					else if (c === ESC) this.#state = State.Escape;
					else if (c < 0x20 || c > 0x7e) this.#state = State.Ground;
					continue;
				}
				case State.String: {
					run = i + 1;
					if (c === 0x07 || c === 0x9c) this.#state = State.Ground;
					else if (c === ESC) this.#state = State.StringEscape;
					continue;
				}
				case State.StringEscape: {
					run = i + 1;
					if (c === 0x5c) this.#state = State.Ground;
					else if (c !== ESC) this.#state = State.String;
					continue;
				}
			}
		}
		if (this.#state === State.Ground) out += s.slice(run);
		return out;
	}

	/** Forgets an unfinished sequence (before the launcher draws on its own, or after a swap). */
	reset(): void {
		this.#state = State.Ground;
		this.#csi = "";
		this.#pendingHigh = "";
	}

	#finishCsi(body: string, final: string): string {
		// body = parameter bytes (0x30–0x3f) then intermediates (0x20–0x2f).
		const m = /^([<=>?]?)([0-9;:]*)([ -/]*)$/.exec(body);
		if (!m) return "";
		const [, prefix, params, inter] = m as unknown as [string, string, string, string];
		if (prefix === "?" && inter === "" && (final === "h" || final === "l")) return this.#privateModes(params, final);
		if (prefix !== "" || (params.includes(":") && final !== "m")) return "";
		if (inter === " " && final === "q") return `\x1b[${params} q`; // cursor style
		if (inter !== "") return "";
		if (!PLAIN_FINALS.has(final)) return "";
		return `\x1b[${params}${final}`;
	}

	#privateModes(params: string, final: "h" | "l"): string {
		const kept: number[] = [];
		for (const part of params.split(";")) {
			if (!/^[0-9]{1,5}$/.test(part)) continue;
			const mode = Number(part);
			if (!this.#allowed(mode)) continue;
			kept.push(mode);
			this.#observer?.privateMode(mode, final === "h");
		}
		return kept.length ? `\x1b[?${kept.join(";")}${final}` : "";
	}

	#allowed(mode: number): boolean {
		if (BASE_MODES.has(mode)) return true;
		if (MOUSE_MODES.has(mode)) return this.#mouse !== "off";
		if (mode === ALL_MOTION) return this.#mouse === "all";
		return false;
	}
}
