/**
 * Draws the UI's images on the terminal, as the launcher's own writes. The UI sends each image once (a bounded
 * PNG, checked and encoded again here: `png-check.ts`), then after a frame that moved, covered or uncovered
 * one, where each image fully visible on its screen now stands. The painter takes the old placements away and
 * draws those (kitty: placements of images sent once; iTerm2: the image again), keeping the cursor where the
 * UI left it. Nothing is drawn while the launcher's own screen is up, or where the terminal has no protocol.
 */
import { errorText } from "../../protocol/errors.ts";
import { RateWindow } from "../../protocol/rate-window.ts";
import {
	type CellBox,
	type ImageProtocol,
	iterm2Inline,
	KITTY_DELETE_ALL,
	KITTY_DELETE_PLACEMENTS,
	keepCursor,
	kittyDelete,
	kittyPlace,
	kittyTransmit,
} from "./graphics-sequences.ts";
import { type CheckedPng, checkedPng } from "./png-check.ts";

/** One image on the UI's screen, by the id the UI gave it. */
export interface ImagePlacement extends CellBox {
	readonly id: string;
}

export interface ImagePainterOptions {
	protocol(): ImageProtocol | undefined;
	/** The terminal's size now: an image that does not fit on it is not drawn. */
	size(): { readonly columns: number; readonly rows: number };
	/** The UI's screen is what shows (no screen of the launcher's, the terminal not lent out). */
	onScreen(): boolean;
	/** The launcher's own write to the terminal. */
	write(data: string): void;
	problem(text: string): void;
	/** An image was refused: the UI hears why (and shows its placeholder instead). */
	refused(id: string, reason: string): void;
	/** How an image is checked and encoded again (a test's stand-in). */
	check?(base64: string): Promise<CheckedPng>;
	/** Image data the terminal is sent per second at most (base64 characters). */
	readonly charsPerSecond?: number;
	/** The clock of the budget's window (a test's). */
	now?(): number;
}

interface Held {
	readonly png: CheckedPng;
	readonly bytes: number;
	/** The number the terminal knows it by (kitty), the launcher's own. */
	readonly terminalId: number;
	sent: boolean;
}

/** What the painter keeps: enough images for a few screens, bounded in count and in size. */
const MAX_HELD = 64;
const MAX_HELD_CHARS = 48 * 1024 * 1024;
/** Checks at once, and waiting: a UI that sends more than that loses the rest (it sends them again when needed). */
const CHECKS_AT_ONCE = 2;
const CHECKS_WAITING = 16;
/**
 * A few screens of the largest images a second. Images are the launcher's own writes, which the terminal always
 * takes: a UI that clears the screen at every frame to have them sent again would flood it without this bound.
 */
const CHARS_PER_SECOND = 16 * 1024 * 1024;

export class ImagePainter {
	readonly #options: ImagePainterOptions;
	readonly #held = new Map<string, Held>();
	#heldChars = 0;
	readonly #checking = new Set<string>();
	readonly #waiting: { id: string; base64: string }[] = [];
	#placements: readonly ImagePlacement[] = [];
	/** Something of the painter's is on the terminal now. */
	#shown = false;
	#nextTerminalId = 1;
	/** Bumped when the UI is replaced: a check that ends after that is dropped. */
	#generation = 0;
	readonly #budget: RateWindow;
	/** A paint that left images out for the budget is tried again when it is whole. */
	#retry: ReturnType<typeof setTimeout> | undefined;

	constructor(options: ImagePainterOptions) {
		this.#options = options;
		this.#budget = new RateWindow(1000, options.now ? { now: options.now } : {});
	}

	/** Images held, by the UI's ids (for tests and the log). */
	get held(): readonly string[] {
		return [...this.#held.keys()];
	}

	/** An image from the UI: checked, then held under its id (an id it already has is ignored). */
	receive(id: string, base64: string): void {
		if (this.#held.has(id) || this.#checking.has(id) || this.#waiting.some((w) => w.id === id)) return;
		if (this.#checking.size >= CHECKS_AT_ONCE) {
			if (this.#waiting.length >= CHECKS_WAITING) return this.#options.problem("image: too many images at once");
			this.#waiting.push({ id, base64 });
			return;
		}
		this.#check(id, base64);
	}

	#check(id: string, base64: string): void {
		const generation = this.#generation;
		this.#checking.add(id);
		const check = this.#options.check ?? checkedPng;
		void check(base64)
			.then(
				(png) => {
					if (generation !== this.#generation) return;
					this.#hold(id, png);
					if (this.#placements.some((p) => p.id === id)) this.paint();
				},
				(error) => {
					if (generation !== this.#generation) return;
					this.#options.problem(`image ${id.slice(0, 64)}: ${errorText(error)}`);
					this.#options.refused(id, errorText(error).slice(0, 300));
				},
			)
			.finally(() => {
				if (generation !== this.#generation) return;
				this.#checking.delete(id);
				const next = this.#waiting.shift();
				if (next) this.#check(next.id, next.base64);
			});
	}

	#hold(id: string, png: CheckedPng): void {
		const held: Held = {
			png,
			bytes: Buffer.byteLength(png.base64, "base64"),
			terminalId: this.#nextTerminalId++,
			sent: false,
		};
		this.#held.set(id, held);
		this.#heldChars += png.base64.length;
		let out = "";
		for (const [oldId, old] of this.#held) {
			if (this.#held.size <= MAX_HELD && this.#heldChars <= MAX_HELD_CHARS) break;
			if (oldId === id) continue;
			this.#held.delete(oldId);
			this.#heldChars -= old.png.base64.length;
			if (old.sent && this.#options.protocol() === "kitty") out += kittyDelete(old.terminalId);
		}
		if (out) this.#options.write(out);
	}

	/** Where the UI's images stand now (after its latest frame): the old placements go, these are drawn. */
	place(placements: readonly ImagePlacement[]): void {
		this.#placements = placements;
		this.paint();
	}

	paint(): void {
		const protocol = this.#options.protocol();
		if (!protocol || !this.#options.onScreen()) return;
		const size = this.#options.size();
		let out = protocol === "kitty" && this.#shown ? KITTY_DELETE_PLACEMENTS : "";
		let drawn = false;
		for (const placement of this.#placements) {
			const held = this.#held.get(placement.id);
			if (!held || !fits(placement, size, protocol)) continue;
			// Recently drawn images are the last to leave the cache.
			this.#held.delete(placement.id);
			this.#held.set(placement.id, held);
			const sending = protocol === "iterm2" || !held.sent;
			if (
				sending &&
				!this.#budget.take("chars", held.png.base64.length, this.#options.charsPerSecond ?? CHARS_PER_SECOND)
			) {
				this.#retryWhenWhole();
				continue;
			}
			drawn = true;
			if (protocol === "iterm2") {
				out += iterm2Inline(held.png.base64, held.bytes, placement);
				continue;
			}
			if (!held.sent) out += kittyTransmit(held.terminalId, held.png.base64);
			held.sent = true;
			out += kittyPlace(held.terminalId, placement);
		}
		this.#shown = drawn;
		if (out) this.#options.write(keepCursor(out));
	}

	/**
	 * Something cleared the screen (a full redraw's ED 2): its placements went with it, and kitty frees the data
	 * of images left without one, so each image is sent again with its next placement.
	 */
	screenCleared(): void {
		for (const held of this.#held.values()) held.sent = false;
		this.#shown = false;
	}

	#retryWhenWhole(): void {
		if (this.#retry) return;
		if (this.#budget.firstRefusal("chars"))
			this.#options.problem("image: more image data than the terminal takes in a second");
		this.#retry = setTimeout(() => {
			this.#retry = undefined;
			this.paint();
		}, this.#budget.untilNext() + 1);
		this.#retry.unref?.();
	}

	/** The launcher's own screen comes up (or the terminal is lent out): the images leave the screen. */
	hide(): void {
		if (this.#shown && this.#options.protocol() === "kitty") this.#options.write(KITTY_DELETE_PLACEMENTS);
		this.#shown = false;
		this.#placements = [];
	}

	/** Another UI takes over, or p2 ends: nothing of the old one's stays, on the terminal or here. */
	reset(): void {
		const sent = [...this.#held.values()].some((held) => held.sent);
		if ((sent || this.#shown) && this.#options.protocol() === "kitty") this.#options.write(KITTY_DELETE_ALL);
		this.#generation++;
		this.#held.clear();
		this.#heldChars = 0;
		this.#checking.clear();
		this.#waiting.length = 0;
		this.#placements = [];
		this.#shown = false;
		clearTimeout(this.#retry);
		this.#retry = undefined;
	}
}

/**
 * Whole on the screen. iTerm2 moves the cursor below what it drew, so an image there stays off the last row
 * (the terminal would scroll).
 */
function fits(box: CellBox, size: { columns: number; rows: number }, protocol: ImageProtocol): boolean {
	const lastRow = protocol === "iterm2" ? size.rows - 1 : size.rows;
	return box.row >= 0 && box.col >= 0 && box.row + box.rows <= lastRow && box.col + box.columns <= size.columns;
}
