/**
 * The guest's side of the launcher's images: inline images (`src/ui/inline-image.ts`) mark their rows; after each
 * frame this finds the images that stand whole on the screen and, when one moved, appeared, went, or had its
 * rows written over, tells the launcher where they all stand now (`imagePlacements`). Each image's PNG is sent
 * once (`image`), when it is first shown. The worker itself never writes a graphics sequence.
 */
import { visibleWidth } from "@earendil-works/pi-tui";
import type { GuestHost, ImagePlacement } from "../protocol/channel.ts";
import { MAX_IMAGE_BASE64_CHARS, MAX_IMAGE_PLACEMENTS } from "../protocol/channel-kinds.ts";
import { type ImageDisplay, type ImageSource, imagePlaceholder } from "../ui/inline-image.ts";

export type ImageProtocol = "kitty" | "iterm2";

/** `ESC _ p2i:<token>:<row>:<rows>[:e] BEL`: zero-width for pi-tui, dropped by the launcher's filter. */
const MARKER = /\x1b_p2i:(\d+):(\d+):(\d+)(:e)?\x07/g;
const SGR = /\x1b\[[0-9;:]*m/g;

interface Found {
	readonly id: string;
	readonly imageRow: number;
	readonly rows: number;
	readonly screenRow: number;
	readonly col: number;
	readonly columns: number;
}

export class InlineImages implements ImageDisplay {
	readonly #host: Pick<GuestHost, "post">;
	#protocol: ImageProtocol | undefined;
	readonly #listeners = new Set<() => void>();
	readonly #tokens = new Map<string, number>();
	readonly #ids: string[] = [];
	/** Ids whose PNG was sent (or is on its way, or failed: it is not asked for again). */
	readonly #sent = new Set<string>();
	/** Ids whose image failed to load or that the launcher refused: shown as pi's placeholder. */
	readonly #refused = new Set<string>();
	/** Each shown image's placeholder, for the transcript left on the terminal at exit. */
	readonly #labels = new Map<string, string>();
	#lastScreen: readonly string[] = [];
	#lastPlacements = "[]";

	constructor(host: Pick<GuestHost, "post">, protocol: ImageProtocol | undefined) {
		this.#host = host;
		this.#protocol = protocol;
	}

	/** The protocol the launcher draws with; undefined: images are text placeholders. */
	get protocol(): ImageProtocol | undefined {
		return this.#protocol;
	}

	setProtocol(protocol: ImageProtocol | undefined): void {
		if (protocol === this.#protocol) return;
		this.#protocol = protocol;
		for (const listener of [...this.#listeners]) listener();
	}

	onChange(listener: () => void): () => void {
		this.#listeners.add(listener);
		return () => this.#listeners.delete(listener);
	}

	markers(id: string, row: number, rows: number): readonly [string, string] {
		let token = this.#tokens.get(id);
		if (token === undefined) {
			token = this.#ids.length;
			this.#ids.push(id);
			this.#tokens.set(id, token);
		}
		return [`\x1b_p2i:${token}:${row}:${rows}\x07`, `\x1b_p2i:${token}:${row}:${rows}:e\x07`];
	}

	refused(id: string): boolean {
		return this.#refused.has(id);
	}

	/** The launcher refused the image (or it did not load): its placeholder is shown instead. */
	refuse(id: string): void {
		if (this.#refused.has(id)) return;
		this.#refused.add(id);
		for (const listener of [...this.#listeners]) listener();
	}

	want(source: ImageSource): void {
		this.#labels.set(source.id, imagePlaceholder(source));
		if (!this.#protocol || this.#sent.has(source.id) || source.id.length > 64) return;
		this.#sent.add(source.id);
		source.load().then(
			(png) => {
				if (png.length > MAX_IMAGE_BASE64_CHARS) throw new Error("the image is over the launcher's limit");
				this.#host.post({ kind: "image", id: source.id, png });
			},
			(error: unknown) => {
				this.#warn(source.id, error);
				this.refuse(source.id);
			},
		);
	}

	#warn(id: string, error: unknown): void {
		const text = error instanceof Error ? error.message : String(error);
		this.#host.post({ kind: "log", level: "warn", text: `image ${id}: ${text}`.slice(0, 4000) });
	}

	/**
	 * The transcript's lines as the terminal keeps them after exit, where no image stays: each image's first row
	 * becomes its placeholder (at its column), its other rows go.
	 */
	forExit(lines: readonly string[]): string[] {
		const out: string[] = [];
		for (const line of lines) {
			const start = /\x1b_p2i:(\d+):(\d+):\d+\x07/.exec(line);
			if (!start) {
				out.push(line);
				continue;
			}
			if (start[2] !== "0") continue;
			const label = this.#labels.get(this.#ids[Number(start[1])] ?? "") ?? "[Image]";
			out.push(`${" ".repeat(visibleWidth(line.slice(0, start.index)))}${label}`);
		}
		return out;
	}

	/** After a frame went out (`data`), with the screen it left (pi-tui's composed rows). */
	afterFrame(data: string, screen: readonly string[]): void {
		const previous = this.#lastScreen;
		this.#lastScreen = screen;
		const placements = this.#protocol ? placementsOn(screen, this.#ids) : [];
		const key = JSON.stringify(placements);
		const moved = key !== this.#lastPlacements;
		const redrawn = data.includes("\x1b[2J");
		const covered = placements.some((p) => {
			for (let row = p.row; row < p.row + p.rows; row++) if (screen[row] !== previous[row]) return true;
			return false;
		});
		if (!moved && !(placements.length && (redrawn || covered))) return;
		this.#lastPlacements = key;
		this.#host.post({ kind: "imagePlacements", placements });
	}
}

/** The images whole on the screen: every row there, one under the other, at one column, nothing drawn over. */
export function placementsOn(screen: readonly string[], ids: readonly string[]): ImagePlacement[] {
	const byToken = new Map<number, Found[]>();
	screen.forEach((line, screenRow) => {
		if (!line.includes("\x1b_p2i:")) return;
		const starts = new Map<string, { index: number; end: number; col: number }>();
		for (const match of line.matchAll(MARKER)) {
			const [marker, token, imageRow, rows, isEnd] = match;
			const key = `${token}:${imageRow}`;
			if (!isEnd) {
				starts.set(key, {
					index: match.index,
					end: match.index + marker.length,
					col: visibleWidth(line.slice(0, match.index)),
				});
				continue;
			}
			const start = starts.get(key);
			const id = ids[Number(token)];
			if (!start || id === undefined) continue;
			const cells = line.slice(start.end, match.index).replace(SGR, "");
			if (!/^ +$/.test(cells)) continue;
			const found = byToken.get(Number(token)) ?? [];
			found.push({
				id,
				imageRow: Number(imageRow),
				rows: Number(rows),
				screenRow,
				col: start.col,
				columns: cells.length,
			});
			byToken.set(Number(token), found);
		}
	});
	const placements: ImagePlacement[] = [];
	for (const found of byToken.values()) {
		const first = found.find((f) => f.imageRow === 0);
		if (!first || found.length !== first.rows) continue;
		const whole = found.every(
			(f) =>
				f.rows === first.rows &&
				f.col === first.col &&
				f.columns === first.columns &&
				f.screenRow === first.screenRow + f.imageRow,
		);
		if (!whole) continue;
		placements.push({ id: first.id, row: first.screenRow, col: first.col, columns: first.columns, rows: first.rows });
		if (placements.length === MAX_IMAGE_PLACEMENTS) break;
	}
	return placements;
}

/**
 * The rows pi-tui's fullscreen renderer composed last, as the screen shows them. pi-tui 1.6.0 keeps them in its
 * `previousScreen` field and offers no way to read them; a test pins that they are there.
 */
export function composedScreen(tui: object): readonly string[] {
	const screen: unknown = Object.getOwnPropertyDescriptor(tui, "previousScreen")?.value;
	return Array.isArray(screen) && screen.every((line) => typeof line === "string") ? screen : [];
}
