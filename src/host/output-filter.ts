/**
 * The launcher's streaming filter for everything the guest worker writes to the terminal.
 *
 * What passes: printable text, tab/newline/carriage return/backspace, SGR, cursor movement and style,
 * erase and insert/delete, scroll regions and scrolling, cursor save/restore, the private modes pi-tui's
 * fullscreen renderer needs (mouse modes by the visitor's policy), and, where the terminal takes them, OSC 8
 * hyperlinks whose visible text is their https address itself (see `link-check.ts`). Everything else is
 * removed: every other OSC (clipboard, titles, colors, notifications) and every other hyperlink (its text
 * stays), DCS, APC, PM, SOS, 8-bit C1 controls, other C0 controls, and every sequence that makes the terminal
 * answer (DSR, DA, DECRQM, DECRQSS, window reports, kitty keyboard queries). Sequences split across chunks are
 * handled; state is bounded.
 */
import { linkShown, linkTarget, MAX_LINK_TEXT } from "./link-check.ts";

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
/** DCS, APC, PM, SOS, and an OSC that cannot be a link: consumed through BEL (OSC) or ST, never emitted. */
const STRING = 5;
/** ESC seen inside a string: `\` ends it. */
const STRING_ESCAPE = 6;
/** A 7-bit OSC, kept (bounded) until its end in case it opens or closes a hyperlink. */
const OSC = 7;
/** ESC seen inside an OSC being kept: `\` ends it. */
const OSC_ESCAPE = 8;
/** An OSC longer than this is no hyperlink p2 passes: `8;` and a few parameters, and the address. */
const MAX_OSC = 2100;
const LINK_CLOSE_BEL = "\x1b]8;;\x07";
const LINK_CLOSE_ST = "\x1b]8;;\x1b\\";

export class OutputFilter {
	#state = GROUND;
	#csi = "";
	/** A high surrogate that ended the previous chunk. */
	#pendingHigh = "";
	#mouse: MousePolicy;
	#decisions = new Map<string, string>();
	#observer: ModeObserver | undefined;
	/** Whether hyperlinks may pass now (the terminal takes them, as decided); otherwise every OSC 8 is removed. */
	#links: () => boolean;
	/** The OSC being kept, without its `ESC ]`. */
	#osc = "";
	/**
	 * The address of the hyperlink open now (its text is held until it closes), and the held text: the output
	 * since the link opened, carried from one chunk to the next.
	 */
	#link: string | undefined;
	#held = "";
	/** While a link is open, the chunk's output from before it (`out` is then the link's text so far). */
	#before = "";
	/** Addresses already checked: a screen repeats its links on every frame. */
	#targets = new Map<string, string | undefined>();

	constructor(options: { mouse?: MousePolicy; observer?: ModeObserver; links?: () => boolean } = {}) {
		this.#mouse = options.mouse ?? "off";
		this.#observer = options.observer;
		this.#links = options.links ?? (() => false);
	}

	/** Filters one chunk. Never throws; an unfinished sequence waits for the next chunk. */
	write(chunk: string): string {
		let out = this.#held;
		this.#held = "";
		this.#before = "";
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
					if (c === ESC && s.charCodeAt(i + 1) === 0x5d) {
						// pi-tui ends every line with a hyperlink's close: decided here without the byte-wise states.
						const end = s.startsWith(LINK_CLOSE_BEL, i) ? i + 6 : s.startsWith(LINK_CLOSE_ST, i) ? i + 7 : -1;
						if (end > 0) {
							out = this.#linkClose(out + s.slice(run, i));
							i = end - 1;
							run = end;
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
								return this.#holdLink(out);
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
					} else if (c === 0x5d) {
						state = OSC;
						this.#osc = "";
					} else if (c === 0x50 || c === 0x5f || c === 0x5e || c === 0x58) {
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
				case OSC: {
					if (c >= 0x20 && c <= 0x7e) {
						// The OSC's printable run in one step, as far as a kept OSC may reach.
						let j = i + 1;
						const limit = Math.min(n, i + MAX_OSC + 1);
						while (j < limit) {
							const b = s.charCodeAt(j);
							if (b < 0x20 || b > 0x7e) break;
							j++;
						}
						this.#osc += s.slice(i, j);
						if (this.#osc.length > MAX_OSC) {
							// Too long for a hyperlink p2 passes: dropped like any other string.
							this.#osc = "";
							state = STRING;
						}
						i = j - 1;
						run = j;
						continue;
					}
					run = i + 1;
					if (c === 0x07 || c === 0x9c) {
						out = this.#oscEnd(out);
						state = GROUND;
					} else if (c === ESC) state = OSC_ESCAPE;
					else {
						// A control or a character beyond ASCII: no hyperlink p2 passes, dropped like any other string.
						this.#osc = "";
						state = STRING;
					}
					continue;
				}
				case OSC_ESCAPE: {
					run = i + 1;
					if (c === 0x5c) {
						out = this.#oscEnd(out);
						state = GROUND;
					} else {
						this.#osc = "";
						state = c === ESC ? STRING_ESCAPE : STRING;
					}
					continue;
				}
			}
		}
		if (state === GROUND) out += s.slice(run);
		this.#state = state;
		return this.#holdLink(out);
	}

	/** Forgets an unfinished sequence and a hyperlink's held text (before the launcher draws, after a swap). */
	reset(): void {
		this.#state = GROUND;
		this.#csi = "";
		this.#osc = "";
		this.#pendingHigh = "";
		this.#link = undefined;
		this.#held = "";
		this.#before = "";
	}

	/**
	 * A whole OSC was read. Only `8 ; params ; URI` matters: an https address opens a link whose text is held;
	 * an empty one closes the open link, which passes (parameters dropped) when its text is its address. Every
	 * other OSC, and every link that fails, is dropped; held text always passes.
	 */
	#oscEnd(out: string): string {
		const body = this.#osc;
		this.#osc = "";
		if (body.charCodeAt(0) !== 0x38 || body.charCodeAt(1) !== 0x3b) return out;
		const uri = body.slice(body.indexOf(";", 2) + 1 || body.length);
		const open = this.#link;
		const before = this.#before;
		// A link opened inside another ends the first one unlinked.
		const text = open === undefined ? out : before + out;
		this.#link = undefined;
		this.#before = "";
		if (uri !== "") {
			const target = this.#links() ? this.#target(uri) : undefined;
			if (target === undefined) return text;
			this.#link = target;
			this.#before = text;
			return "";
		}
		if (open === undefined || !linkShown(out, open)) return text;
		// Revealed (SGR 28): text concealed before the link opened does not hide it.
		return `${before}\x1b]8;;${open}\x1b\\\x1b[28m${out}${LINK_CLOSE_ST}`;
	}

	/** A hyperlink's close (`8;;`): the open link passes if its text is its address; nothing else changes. */
	#linkClose(out: string): string {
		if (this.#link === undefined) return out;
		this.#osc = "8;;";
		return this.#oscEnd(out);
	}

	#target(uri: string): string | undefined {
		if (this.#targets.has(uri)) return this.#targets.get(uri);
		const target = linkTarget(uri);
		if (this.#targets.size < 256) this.#targets.set(uri, target);
		return target;
	}

	/**
	 * At the end of a chunk, an open link's text waits for the next one, unless it is already no link's text
	 * (a line break, or more than a link's text may be): then it passes and the link is forgotten.
	 */
	#holdLink(out: string): string {
		if (this.#link === undefined) return out;
		const before = this.#before;
		this.#before = "";
		if (out.length > MAX_LINK_TEXT || out.includes("\n") || out.includes("\r")) {
			this.#link = undefined;
			return before + out;
		}
		this.#held = out;
		return before;
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
