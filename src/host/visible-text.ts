/**
 * Text from the server or the worker as the launcher shows it on its own screens and lines: every control,
 * format and bidirectional character made visible (so data can show, never instruct the terminal or reorder
 * what the person reads), and long lines wrapped rather than cut.
 */

/** Invisible or reordering code points that are not C0/C1 controls: bidi marks, zero-width, tags, BOM. */
const FORMAT = /[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\ufff9-\ufffb]/u;
const TAGS = /[\u{e0000}-\u{e007f}]/u;

/** A zero-width, bidirectional or other invisible formatting code point. */
export function isFormat(ch: string): boolean {
	return FORMAT.test(ch) || TAGS.test(ch);
}

/** One code point as it is shown: itself, a control picture, or `⟨U+XXXX⟩`. */
function visibleChar(ch: string): string {
	const code = ch.codePointAt(0)!;
	if (code < 0x20) return String.fromCharCode(0x2400 + code);
	if (code === 0x7f) return "␡";
	if (code >= 0x80 && code < 0xa0) return `⟨U+${code.toString(16).toUpperCase().padStart(4, "0")}⟩`;
	if (code >= 0xd800 && code <= 0xdfff) return "�";
	if (FORMAT.test(ch) || TAGS.test(ch)) return `⟨U+${code.toString(16).toUpperCase().padStart(4, "0")}⟩`;
	return ch;
}

const NEEDS_WORK =
	/[\x00-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\ufff9-\ufffb\ud800-\udfff]/;

/** Control, format and bidi characters made visible; everything else as it is. */
export function visibleControls(text: string): string {
	if (!NEEDS_WORK.test(text) && !TAGS.test(text)) return text;
	let out = "";
	for (const ch of text) out += visibleChar(ch);
	return out;
}

/** One line for the launcher's own output on the real terminal: controls visible, bounded. */
export function terminalLine(text: string, max = 2000): string {
	const shown = visibleControls(text);
	return shown.length > max ? `${shown.slice(0, max)}… (${shown.length - max} more characters)` : shown;
}

/** Columns a string takes on the terminal (wide characters count two). */
export function columnsOf(text: string): number {
	return Bun.stringWidth(text);
}

/**
 * One line of (already visible) text cut into rows of at most `width` columns; never cut short. An empty line
 * is one empty row.
 */
export function wrapLine(line: string, width: number): string[] {
	const room = Math.max(1, width);
	if (columnsOf(line) <= room) return [line];
	const rows: string[] = [];
	let row = "";
	let used = 0;
	for (const ch of line) {
		const w = columnsOf(ch);
		if (used + w > room && row) {
			rows.push(row);
			row = "";
			used = 0;
		}
		row += ch;
		used += w;
	}
	rows.push(row);
	return rows;
}
