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
	/** The cursor's shape (DECSCUSR `CSI Ps SP q`), as the filter let it through. */
	cursorStyle(style: number): void;
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

/**
 * Printable ASCII, tab/newline/CR/backspace, BMP text outside C1 and the surrogates, and the CSI sequences
 * that always pass unchanged (SGR, cursor, erase): skipped in one regular-expression step.
 */
const PLAIN_RUN =
	/(?:[\x20-\x7e\n\r\t\b\xa0-\ud7ff\ue000-\uffff]+|\x1b\[[0-9;:]{0,64}m|\x1b\[[0-9;]{0,64}[ABCDEFGHfdeaJKXP@LMSTrsu`])*/y;

const PLAIN_FINAL_CODES = new Uint8Array(128);
for (const ch of PLAIN_FINALS) PLAIN_FINAL_CODES[ch.charCodeAt(0)] = 1;

// Filter states, as plain numbers so the per-character loop compares constants.
const GROUND = 0;
const ESCAPE = 1;
/** ESC followed by intermediates (e.g. `ESC ( B`): dropped through the final byte. */
const ESCAPE_INTERMEDIATE = 2;
const CSI = 3;
/** A CSI being dropped (too long or malformed): consume through the final byte. */
const CSI_DROP = 4;
/** OSC, DCS, APC, PM, SOS: consumed through BEL (OSC) or ST, never emitted. */
const STRING = 5;
/** ESC seen inside a string: `\` ends it. */
const STRING_ESCAPE = 6;

export class OutputFilter {
	#state = GROUND;
	#csi = "";
	/** A high surrogate that ended the previous chunk. */
	#pendingHigh = "";
	#mouse: MousePolicy;
	#decisions = new Map<string, string>();
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
		let state = this.#state;
		for (let i = 0; i < n; i++) {
			const c = s.charCodeAt(i);
			switch (state) {
				case GROUND: {
					if (
						(c >= 0x20 && c < 0x7f) ||
						(c >= 0xa0 && (c < 0xd800 || c > 0xdfff)) ||
						c === 0x0a ||
						c === 0x0d ||
						c === ESC
					) {
						// Skip the whole run of plain text and always-allowed sequences at once.
						PLAIN_RUN.lastIndex = i;
						PLAIN_RUN.test(s);
						if (PLAIN_RUN.lastIndex > i) {
							i = PLAIN_RUN.lastIndex - 1;
							continue;
						}
					}
					if (c === ESC && s.charCodeAt(i + 1) === 0x5b) {
						// A complete CSI in one piece (the common case): decide it without the byte-wise states.
						let j = i + 2;
						const limit = Math.min(n, i + 2 + MAX_CSI);
						let b = 0;
						let plain = true; // only digits and ';' (':' for SGR) so far
						let colon = false;
						for (; j < limit; j++) {
							b = s.charCodeAt(j);
							if (b < 0x20 || b > 0x3f) break;
							if (b === 0x3a) colon = true;
							else if (b < 0x30 || b > 0x3b) plain = false;
						}
						if (j < limit && b >= 0x40 && b <= 0x7e) {
							if (plain && PLAIN_FINAL_CODES[b] === 1 && (!colon || b === 0x6d)) {
								// Allowed as it is, the most common case by far: the run of output simply goes on.
								i = j;
								continue;
							}
							const whole = s.slice(i, j + 1);
							const decision = this.#csiOut(whole, i + 2, j, s);
							// An allowed sequence passes as it is: the run of output simply goes on.
							if (decision !== whole) {
								out += s.slice(run, i) + decision;
								run = j + 1;
							}
							i = j;
							continue;
						}
					}
					if (c >= 0xa0) {
						if (c >= 0xd800 && c <= 0xdbff) {
							if (i === n - 1) {
								out += s.slice(run, i);
								this.#pendingHigh = s[i]!;
								this.#state = state;
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
					if (c === ESC) state = ESCAPE;
					else if (c === 0x9b) {
						// 8-bit CSI: dropped whole.
						state = CSI_DROP;
					} else if (c === 0x90 || c === 0x98 || c === 0x9d || c === 0x9e || c === 0x9f) {
						state = STRING;
					}
					// Any other C0, DEL or C1 control is dropped.
					continue;
				}
				case ESCAPE: {
					run = i + 1;
					if (c === 0x5b) {
						state = CSI;
						this.#csi = "";
					} else if (c === 0x5d || c === 0x50 || c === 0x5f || c === 0x5e || c === 0x58) {
						state = STRING;
					} else if (c === 0x37 || c === 0x38 || c === 0x4d || c === 0x44 || c === 0x45) {
						// DECSC, DECRC, reverse index, index, next line.
						out += `\x1b${s[i]}`;
						state = GROUND;
					} else if (c >= 0x20 && c <= 0x2f) {
						state = ESCAPE_INTERMEDIATE;
					} else if (c === ESC) {
						// ESC ESC: the first one is dropped, the second starts again.
					} else {
						// Other escapes (RIS, keypad modes, stray ST, controls) are dropped.
						state = GROUND;
					}
					continue;
				}
				case ESCAPE_INTERMEDIATE: {
					run = i + 1;
					if (c >= 0x30 && c <= 0x7e) state = GROUND;
					else if (c === ESC) state = ESCAPE;
					else if (c < 0x20 || c > 0x7e) state = GROUND;
					continue;
				}
				case CSI: {
					run = i + 1;
					if (c >= 0x40 && c <= 0x7e) {
						out += this.#finishCsi(this.#csi, s[i]!);
						state = GROUND;
					} else if (c >= 0x20 && c <= 0x3f) {
						this.#csi += s[i];
						if (this.#csi.length > MAX_CSI) state = CSI_DROP;
					} else if (c === ESC) {
						state = ESCAPE;
					} else {
						// A control inside a CSI aborts it.
						state = GROUND;
					}
					continue;
				}
				case CSI_DROP: {
					run = i + 1;
					if (c >= 0x40 && c <= 0x7e) state = GROUND;
					else if (c === ESC) state = ESCAPE;
					else if (c < 0x20 || c > 0x7e) state = GROUND;
					continue;
				}
				case STRING: {
					run = i + 1;
					if (c === 0x07 || c === 0x9c) state = GROUND;
					else if (c === ESC) state = STRING_ESCAPE;
					continue;
				}
				case STRING_ESCAPE: {
					run = i + 1;
					if (c === 0x5c) state = GROUND;
					else if (c !== ESC) state = STRING;
					continue;
				}
			}
		}
		if (state === GROUND) out += s.slice(run);
		this.#state = state;
		return out;
	}

	/** Forgets an unfinished sequence (before the launcher draws on its own, or after a swap). */
	reset(): void {
		this.#state = GROUND;
		this.#csi = "";
		this.#pendingHigh = "";
	}

	/** Decisions for sequences without side effects are cached: a frame repeats the same few SGRs. */
	#csiOut(whole: string, from: number, finalAt: number, s: string): string {
		const cached = this.#decisions.get(whole);
		if (cached !== undefined) return cached;
		const body = s.slice(from, finalAt);
		const final = s[finalAt]!;
		const out = this.#finishCsi(body, final);
		const observed =
			(body.startsWith("?") && (final === "h" || final === "l")) || (final === "q" && body.endsWith(" "));
		if (!observed && this.#decisions.size < 4096) {
			this.#decisions.set(whole, out);
		}
		return out;
	}

	#finishCsi(body: string, final: string): string {
		// body = parameter bytes (0x30–0x3f) then intermediates (0x20–0x2f).
		const m = /^([<=>?]?)([0-9;:]*)([ -/]*)$/.exec(body);
		if (!m) return "";
		const [, prefix, params, inter] = m as unknown as [string, string, string, string];
		if (prefix === "?" && inter === "" && (final === "h" || final === "l")) return this.#privateModes(params, final);
		if (prefix !== "" || (params.includes(":") && final !== "m")) return "";
		if (inter === " " && final === "q") return this.#cursorStyle(params);
		if (inter !== "") return "";
		if (!PLAIN_FINALS.has(final)) return "";
		return `\x1b[${params}${final}`;
	}

	/** DECSCUSR with one parameter 0–6: passed on, and told to the observer so it can be undone. */
	#cursorStyle(params: string): string {
		if (!/^[0-6]?$/.test(params)) return "";
		this.#observer?.cursorStyle(Number(params || "0"));
		return `\x1b[${params} q`;
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
