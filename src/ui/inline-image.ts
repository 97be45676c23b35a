/**
 * An image in the transcript, drawn by the launcher (the worker never writes graphics): a region of blank rows,
 * each between two zero-width markers that name the image and the row. After a frame the guest finds the markers
 * on its screen (`src/guest/inline-images.ts`) and tells the launcher where each whole image stands; the
 * launcher's output filter drops the markers like any other APC. Where nothing can be drawn (no protocol, tmux,
 * `terminal.showImages` off) it is pi's text placeholder: `[Image: [image/png] 800x600]`.
 */
import { type Component, imageFallback, truncateToWidth } from "@earendil-works/pi-tui";

/** An image as the transcript knows it: its type and size, and how its PNG for the launcher is fetched. */
export interface ImageSource {
	/** The same id always names the same image (the launcher keeps images by it). */
	readonly id: string;
	readonly mimeType: string;
	readonly width?: number;
	readonly height?: number;
	/** The image as a PNG (base64) within the launcher's limits. */
	load(): Promise<string>;
}

/** An image as a transcript item's data holds it (plain facts): which entry, which of its images, its type and size. */
export interface ImageItem {
	readonly seq: number;
	readonly index: number;
	readonly mimeType: string;
	readonly width?: number;
	readonly height?: number;
}

/** How a transcript item draws its images: the guest's display, and each image's source. */
export interface InlineImageParts {
	readonly display: ImageDisplay;
	source(image: ImageItem): ImageSource;
}

/** pi's text placeholder for an image nothing draws: `[Image: [image/png] 800x600]`. */
export function imagePlaceholder(image: Pick<ImageItem, "mimeType" | "width" | "height">): string {
	const size = image.width && image.height ? { widthPx: image.width, heightPx: image.height } : undefined;
	return imageFallback(image.mimeType, size);
}

/** What an inline image needs from the guest: where it stands is found from its markers. */
export interface ImageDisplay {
	/** The markers around row `row` of image `id` (of `rows`): the start and the end of its cells. */
	markers(id: string, row: number, rows: number): readonly [string, string];
	/** The image's PNG goes to the launcher (once per id). */
	want(source: ImageSource): void;
	/** The image could not be drawn (the launcher refused it, or it did not load). */
	refused(id: string): boolean;
}

/** pi-tui's default cell size in pixels, as its Image uses until the terminal says otherwise. */
const CELL = { widthPx: 9, heightPx: 18 };
/** pi's size when an image's header gives none. */
const UNKNOWN_SIZE = { widthPx: 800, heightPx: 600 };

/** The cells an image covers at most `maxColumns` wide, keeping its shape (pi's Image: as tall as wide, in pixels). */
export function imageCells(
	size: { widthPx: number; heightPx: number },
	maxColumns: number,
): { columns: number; rows: number } {
	const maxWidth = Math.max(1, Math.floor(maxColumns));
	const maxHeight = Math.max(1, Math.ceil((maxWidth * CELL.widthPx) / CELL.heightPx));
	const width = Math.max(1, size.widthPx);
	const height = Math.max(1, size.heightPx);
	const scale = Math.min((maxWidth * CELL.widthPx) / width, (maxHeight * CELL.heightPx) / height);
	return {
		columns: Math.max(1, Math.min(maxWidth, Math.ceil((width * scale) / CELL.widthPx))),
		rows: Math.max(1, Math.min(maxHeight, Math.ceil((height * scale) / CELL.heightPx))),
	};
}

export class InlineImage implements Component {
	readonly #display: ImageDisplay;
	readonly #source: ImageSource;
	/** `terminal.imageWidthCells` when the launcher draws images, else undefined (the text placeholder). */
	readonly #widthCells: number | undefined;
	readonly #color: (text: string) => string;
	#cache: { width: number; refused: boolean; lines: string[] } | undefined;

	constructor(
		display: ImageDisplay,
		source: ImageSource,
		widthCells: number | undefined,
		color: (s: string) => string,
	) {
		this.#display = display;
		this.#source = source;
		this.#widthCells = widthCells;
		this.#color = color;
	}

	invalidate(): void {
		this.#cache = undefined;
	}

	render(width: number): string[] {
		const refused = this.#display.refused(this.#source.id);
		if (this.#cache?.width === width && this.#cache.refused === refused) return this.#cache.lines;
		const lines = this.#lines(width, refused);
		this.#cache = { width, refused, lines };
		return lines;
	}

	#lines(width: number, refused: boolean): string[] {
		const source = this.#source;
		const known = source.width && source.height ? { widthPx: source.width, heightPx: source.height } : undefined;
		if (this.#widthCells === undefined || refused)
			return [truncateToWidth(this.#color(imagePlaceholder(source)), width)];
		this.#display.want(source);
		const { columns, rows } = imageCells(known ?? UNKNOWN_SIZE, Math.min(width - 2, this.#widthCells));
		const blank = " ".repeat(columns);
		return Array.from({ length: rows }, (_, row) => {
			const [start, end] = this.#display.markers(source.id, row, rows);
			return `${start}${blank}${end}`;
		});
	}
}
