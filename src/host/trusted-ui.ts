/**
 * The launcher's own screens (design: the consent screen): a question before anything leaves or enters this computer, and a
 * notice of what went wrong with an action (whose detail the worker never learns). Drawn on a reset terminal
 * with only what the launcher knows and the exact data, wrapped and never cut, and answered by keys that
 * never reach the worker. While one is up the launcher forwards no input and discards the worker's output;
 * the worker redraws when it closes.
 */
import { matchesKey } from "../protocol/pi-tui-parts.ts";
import { type Clock, realClock } from "./clock.ts";
import { columnsOf, visibleControls, wrapLine } from "./visible-text.ts";

export type ConsentAnswer = "yes" | "no" | "never" | "withdrawn";

/** The data a question is about, shown as data. */
export type Preview =
	| { readonly kind: "none" }
	/** A text (to copy): its length and line count are stated above it. */
	| { readonly kind: "text"; readonly text: string }
	/** A change, one `+`/`-` line per leaf. */
	| { readonly kind: "diff"; readonly lines: readonly string[] }
	/** An address: its site (the registrable domain) and host each on their own line, then all of it. */
	| { readonly kind: "url"; readonly url: string; readonly host: string; readonly site: string };

export interface ConsentRequest {
	/** The server, from the launcher's own URL. */
	readonly origin: string;
	readonly action: string;
	/** Launcher-known facts: `File: …`. */
	readonly facts: readonly string[];
	readonly preview: Preview;
	/** Offer to refuse such requests until p2 exits (questions the UI asked for). */
	readonly offerNever?: boolean;
}

export interface Notice {
	readonly title: string;
	readonly lines: readonly string[];
}

/**
 * A confirmation counts only after this long without any key since the screen appeared; every key restarts
 * it (type-ahead and a held key are not consent).
 */
export const QUIET_MS = 700;

/** A question nobody answers is withdrawn after this long: consent given later is not consent to what was asked then. */
export const CONSENT_EXPIRES_MS = 5 * 60_000;

const RESET = "\x1b[?2026l\x1b[0m\x1b[r\x1b[?25h\x1b[0 q\x1b[2J\x1b[H";
const BAR = " p2 launcher · on this computer · not the server's screen ";
const DIM = "\x1b[2m";
const BOLD = "\x1b[1m";
const PLAIN = "\x1b[0m";
/** Continuation rows carry this in the gutter, where data never goes. */
const CONTINUED = "↪ ";
const FIRST = "  ";

interface Row {
	readonly gutter: string;
	readonly text: string;
	readonly style: string;
}

interface Question {
	readonly kind: "question";
	readonly request: ConsentRequest;
	readonly shownAt: number;
	lastKeyAt: number;
	scroll: number;
	endSeen: boolean;
	hint: string | undefined;
	readyTimer: unknown;
	readonly expiry: unknown;
	readonly done: (answer: ConsentAnswer) => void;
}

interface Shown {
	readonly kind: "notice";
	readonly notice: Notice;
	scroll: number;
	readonly expiry: unknown;
	readonly done: () => void;
}

const CONFIRM = "Enter or y: confirm";
const WAIT = "Read the question; Enter confirms in a moment";
const SCROLL_FIRST = "Scroll to the end (End) to confirm";
const CANCEL = "Escape or n: cancel";
const NEVER = "d: refuse such requests until p2 exits";
const FOOT_FORMS = [
	[CONFIRM, CANCEL],
	[WAIT, CANCEL],
	[SCROLL_FIRST, CANCEL],
];

const CONFIRM_KEYS = ["enter", "y", "shift+y"] as const;
const CANCEL_KEYS = ["escape", "ctrl+c", "n", "shift+n"] as const;

export class ConsentScreen {
	readonly #write: (data: string) => void;
	readonly #size: () => { columns: number; rows: number };
	readonly #expiresAfterMs: number;
	readonly #clock: Clock;
	#active: Question | Shown | undefined;
	/** The last key the launcher saw while no screen of its own was up (type-ahead into a question). */
	#lastInputAt = Number.NEGATIVE_INFINITY;

	constructor(
		write: (data: string) => void,
		size: () => { columns: number; rows: number },
		options: { expiresAfterMs?: number; clock?: Clock } = {},
	) {
		this.#write = write;
		this.#size = size;
		this.#expiresAfterMs = options.expiresAfterMs ?? CONSENT_EXPIRES_MS;
		this.#clock = options.clock ?? realClock;
	}

	get active(): boolean {
		return this.#active !== undefined;
	}

	/** Every key the launcher receives while none of its screens is up. */
	noteInput(): void {
		this.#lastInputAt = this.#clock.now();
	}

	/**
	 * Shows the request and resolves with the person's answer: Enter or y confirms (once the person could
	 * read it: quiet for a moment, and the end of the data shown); Escape, n or Ctrl+C cancel; d refuses such
	 * requests for the rest of the run (when offered); "withdrawn" when the launcher ended the question (the
	 * worker went away or moved to another session) or nobody answered it in time.
	 */
	confirm(request: ConsentRequest): Promise<ConsentAnswer> {
		if (this.#active) return Promise.resolve("no");
		return new Promise((resolve) => {
			const now = this.#clock.now();
			this.#active = {
				kind: "question",
				request,
				shownAt: now,
				lastKeyAt: this.#lastInputAt,
				scroll: 0,
				endSeen: false,
				hint: undefined,
				readyTimer: undefined,
				expiry: this.#clock.setTimeout(() => this.cancel(), this.#expiresAfterMs),
				done: resolve,
			};
			this.#armReady();
			this.draw();
		});
	}

	/** Shows a notice of the launcher's own until the person dismisses it (or it is withdrawn). */
	notify(notice: Notice): Promise<void> {
		if (this.#active) return Promise.resolve();
		return new Promise((resolve) => {
			this.#active = {
				kind: "notice",
				notice,
				scroll: 0,
				expiry: this.#clock.setTimeout(() => this.cancel(), this.#expiresAfterMs),
				done: resolve,
			};
			this.draw();
		});
	}

	/** Every key while active; the launcher forwards nothing. */
	input(data: string): void {
		const active = this.#active;
		if (!active) return;
		if (active.kind === "notice") {
			if (["enter", "escape", "ctrl+c", "space", "q"].some((key) => matchesKey(data, key as "enter"))) {
				return this.#finish("no");
			}
			if (this.#scrollKey(active, data)) this.draw();
			return;
		}
		const now = this.#clock.now();
		const quietSince = Math.max(active.shownAt, active.lastKeyAt);
		active.lastKeyAt = now;
		active.hint = undefined;
		if (CONFIRM_KEYS.some((key) => matchesKey(data, key))) {
			if (!active.endSeen) active.hint = "Scroll to the end (End) first: you confirm all of it.";
			else if (now - quietSince < QUIET_MS) active.hint = "Keys were still arriving: read, then confirm.";
			else return this.#finish("yes");
		} else if (CANCEL_KEYS.some((key) => matchesKey(data, key))) {
			return this.#finish("no");
		} else if (active.request.offerNever && (matchesKey(data, "d") || matchesKey(data, "shift+d"))) {
			return this.#finish("never");
		} else this.#scrollKey(active, data);
		this.#armReady();
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
		const width = Math.max(8, columns - FIRST.length - 1);
		const content = active.kind === "question" ? questionRows(active.request, width) : noticeRows(active.notice, width);
		// The foot's words change with the state; its room is that of its longest form, so scrolling stays put.
		const footWidth = Math.max(8, columns - 1);
		const footRoom = Math.max(
			...(active.kind === "question" ? FOOT_FORMS : [["Enter or Escape: back"]]).map(
				(form) =>
					packFoot([...form, ...(active.kind === "question" && active.request.offerNever ? [NEVER] : [])], footWidth)
						.length,
			),
		);
		const room = Math.max(1, rows - 1 - 1 - footRoom - (active.kind === "question" ? 1 : 0));
		const maxScroll = Math.max(0, content.length - room);
		active.scroll = Math.min(active.scroll, maxScroll);
		if (active.kind === "question" && active.scroll >= maxScroll) active.endSeen = true;
		const shown = content.slice(active.scroll, active.scroll + room);
		const position =
			maxScroll > 0
				? `${DIM}(rows ${active.scroll + 1}–${active.scroll + shown.length} of ${content.length} · ↑↓ PgUp PgDn Home End)${PLAIN}`
				: "";
		const foot =
			active.kind === "question"
				? [
						active.hint ? `${BOLD}${active.hint}${PLAIN}` : "",
						...packFoot(this.#questionFoot(active), footWidth).map((row, i) =>
							i === 0 ? `${BOLD}${row}${PLAIN}` : row,
						),
					]
				: packFoot(["Enter or Escape: back"], footWidth);
		const bar = `\x1b[7m${BAR.slice(0, columns).padEnd(columns)}${PLAIN}`;
		const lines = [
			bar,
			...shown.map(
				(row) => `${row.gutter === CONTINUED ? DIM : ""}${row.gutter}${PLAIN}${row.style}${row.text}${PLAIN}`,
			),
			...Array.from({ length: room - shown.length }, () => ""),
			position,
			...foot,
		];
		this.#write(RESET + lines.join("\r\n"));
	}

	/** The foot's parts: how to confirm (or why not yet), how to cancel, and the offer to refuse for the run. */
	#questionFoot(active: Question): string[] {
		const ready = active.endSeen && this.#clock.now() - Math.max(active.shownAt, active.lastKeyAt) >= QUIET_MS;
		const confirm = !active.endSeen ? SCROLL_FIRST : ready ? CONFIRM : WAIT;
		return [confirm, CANCEL, ...(active.request.offerNever ? [NEVER] : [])];
	}

	/** Redraws when the quiet period ends, so the screen says when a confirmation counts. */
	#armReady(): void {
		const active = this.#active;
		if (active?.kind !== "question") return;
		if (active.readyTimer !== undefined) this.#clock.clearTimeout(active.readyTimer);
		const wait = Math.max(active.shownAt, active.lastKeyAt) + QUIET_MS - this.#clock.now();
		active.readyTimer = this.#clock.setTimeout(
			() => {
				if (this.#active === active) {
					active.readyTimer = undefined;
					this.draw();
				}
			},
			Math.max(0, wait),
		);
	}

	#scrollKey(active: Question | Shown, data: string): boolean {
		const page = Math.max(1, this.#size().rows - 6);
		if (matchesKey(data, "down")) active.scroll++;
		else if (matchesKey(data, "up")) active.scroll = Math.max(0, active.scroll - 1);
		else if (matchesKey(data, "pageDown") || matchesKey(data, "space")) active.scroll += page;
		else if (matchesKey(data, "pageUp")) active.scroll = Math.max(0, active.scroll - page);
		else if (matchesKey(data, "end")) active.scroll = Number.MAX_SAFE_INTEGER;
		else if (matchesKey(data, "home")) active.scroll = 0;
		else return false;
		return true;
	}

	#finish(answer: ConsentAnswer): void {
		const active = this.#active;
		this.#active = undefined;
		if (!active) return;
		this.#clock.clearTimeout(active.expiry);
		if (active.kind === "question" && active.readyTimer !== undefined) this.#clock.clearTimeout(active.readyTimer);
		this.#write("\x1b[0m\x1b[2J\x1b[H");
		if (active.kind === "question") active.done(answer);
		else active.done();
	}
}

/** The foot's parts joined by ` · `, a row holding as many whole parts as fit (a part too long is wrapped). */
function packFoot(parts: readonly string[], width: number): string[] {
	const rows: string[] = [];
	let row = "";
	for (const part of parts) {
		const joined = row ? `${row} · ${part}` : part;
		if (columnsOf(joined) <= width) row = joined;
		else {
			if (row) rows.push(row);
			const wrapped = wrapLine(part, width);
			rows.push(...wrapped.slice(0, -1));
			row = wrapped.at(-1) ?? "";
		}
	}
	if (row) rows.push(row);
	return rows;
}

/** One logical line as rows: controls visible, wrapped with the continuation mark in the gutter. */
function rowsOf(line: string, width: number, style = ""): Row[] {
	return wrapLine(visibleControls(line), width).map((text, i) => ({
		gutter: i === 0 ? FIRST : CONTINUED,
		text,
		style,
	}));
}

function questionRows(request: ConsentRequest, width: number): Row[] {
	const rows: Row[] = [
		...rowsOf("", width),
		...rowsOf(`Server: ${request.origin}`, width),
		...rowsOf(`Action: ${request.action}`, width),
		...request.facts.flatMap((fact) => rowsOf(fact, width)),
	];
	const preview = request.preview;
	switch (preview.kind) {
		case "none":
			break;
		case "text": {
			const lines = preview.text.split("\n");
			rows.push(
				...rowsOf(
					`Length: ${preview.text.length.toLocaleString("en-US")} characters · ${lines.length.toLocaleString("en-US")} ${lines.length === 1 ? "line" : "lines"}`,
					width,
				),
				...rowsOf("", width),
				...lines.flatMap((line) => rowsOf(line, width)),
			);
			break;
		}
		case "diff":
			rows.push(
				...rowsOf("", width),
				...preview.lines.flatMap((line) =>
					rowsOf(line, width, line.startsWith("+") ? "\x1b[32m" : line.startsWith("-") ? "\x1b[31m" : ""),
				),
			);
			break;
		case "url":
			rows.push(
				...rowsOf(`Site: ${preview.site}`, width, `${BOLD}\x1b[4m`),
				...rowsOf(`Host: ${preview.host}`, width),
				...rowsOf("", width),
				...rowsOf(preview.url, width),
			);
			break;
	}
	return rows;
}

function noticeRows(notice: Notice, width: number): Row[] {
	return [
		...rowsOf("", width),
		...rowsOf(notice.title, width, BOLD),
		...rowsOf("", width),
		...notice.lines.flatMap((line) => rowsOf(line, width)),
	];
}
