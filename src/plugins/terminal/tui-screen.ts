/**
 * A terminal emulator's screen as pi-tui lines: each cell's character, and its attributes (colors, bold,
 * underline…) as SGR. Nothing the program wrote passes as it was written: titles, clipboard writes (OSC 52),
 * links (OSC 8), device strings and queries are consumed by the emulator and never drawn, and a character that
 * is a control is drawn as a space.
 */
import { truncateToWidth } from "@earendil-works/pi-tui";
import type { IBufferCell, Terminal } from "@xterm/headless";

/** The SGR parameters of one cell's colors and attributes ("" for the default look). */
export function cellStyle(cell: IBufferCell): string {
	const out: string[] = [];
	if (cell.isBold()) out.push("1");
	if (cell.isDim()) out.push("2");
	if (cell.isItalic()) out.push("3");
	if (cell.isUnderline()) out.push("4");
	if (cell.isInverse()) out.push("7");
	if (cell.isInvisible()) out.push("8");
	if (cell.isStrikethrough()) out.push("9");
	if (cell.isFgPalette()) out.push(paletteColor(cell.getFgColor(), 30, 90, 38));
	else if (cell.isFgRGB()) out.push(rgbColor(cell.getFgColor(), 38));
	if (cell.isBgPalette()) out.push(paletteColor(cell.getBgColor(), 40, 100, 48));
	else if (cell.isBgRGB()) out.push(rgbColor(cell.getBgColor(), 48));
	return out.join(";");
}

/** The 16 colors as the person's terminal names them (its palette applies), the rest of the 256 by number. */
function paletteColor(n: number, base: number, bright: number, extended: number): string {
	const color = Math.max(0, Math.min(255, Math.floor(n)));
	if (color < 8) return String(base + color);
	if (color < 16) return String(bright + color - 8);
	return `${extended};5;${color}`;
}

function rgbColor(rgb: number, extended: number): string {
	return `${extended};2;${(rgb >> 16) & 255};${(rgb >> 8) & 255};${rgb & 255}`;
}

const CONTROL = /[\x00-\x1f\x7f-\x9f]/;

/** A cell's text as drawn: a control (which no emulator should leave in a cell) becomes a space. */
function cellText(chars: string): string {
	if (!chars) return " ";
	return CONTROL.test(chars) ? " " : chars;
}

export interface ScreenOptions {
	/** The cursor's cell drawn in reverse video (while the panel has the keys). */
	readonly cursor: boolean;
	/** Rows above the bottom page to show (scrolled back); 0 for the live page. */
	readonly scrolledBack?: number;
}

/** The emulator's visible page, one line per row, each at most `width` columns. */
export function screenLines(term: Terminal, width: number, options: ScreenOptions): string[] {
	const buffer = term.buffer.active;
	const back = Math.max(0, Math.min(buffer.baseY, options.scrolledBack ?? 0));
	const top = buffer.baseY - back;
	const cursorRow = options.cursor && back === 0 ? buffer.cursorY : -1;
	const lines: string[] = [];
	let cell: IBufferCell | undefined;
	for (let y = 0; y < term.rows; y++) {
		const line = buffer.getLine(top + y);
		let text = "";
		let style = "";
		let used = 0;
		for (let x = 0; line && x < term.cols; x++) {
			cell = line.getCell(x, cell);
			if (!cell) break;
			const cells = cell.getWidth();
			// The second half of a wide character: drawn with its first.
			if (cells === 0) continue;
			if (used + cells > width) break;
			let next = cellStyle(cell);
			if (y === cursorRow && x === buffer.cursorX) next = next ? `${next};7` : "7";
			if (next !== style) {
				text += `\x1b[0${next ? `;${next}` : ""}m`;
				style = next;
			}
			text += cellText(cell.getChars());
			used += cells;
		}
		// The cursor past the line's last cell (where the next character goes).
		if (y === cursorRow && buffer.cursorX >= term.cols && used < width) {
			text += "\x1b[0;7m ";
			style = "7";
		}
		if (style) text += "\x1b[0m";
		lines.push(truncateToWidth(text, width, ""));
	}
	return lines;
}
