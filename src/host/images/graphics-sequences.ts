/**
 * The terminal graphics the launcher writes (only it does; the UI's output filter drops every such sequence):
 * kitty's graphics protocol (kitty, Ghostty, WezTerm) and iTerm2's inline images. Every payload is the
 * launcher's own base64 PNG, every number its own.
 */

export type ImageProtocol = "kitty" | "iterm2";

/** Where an image goes: its top-left cell (0-based) and the cells it covers. */
export interface CellBox {
	readonly row: number;
	readonly col: number;
	readonly columns: number;
	readonly rows: number;
}

const KITTY_CHUNK = 4096;

/** Sends a PNG to kitty under `imageId` without showing it (`a=t`), in the protocol's 4096-byte chunks. */
export function kittyTransmit(imageId: number, base64: string): string {
	const head = `a=t,f=100,q=2,i=${imageId}`;
	if (base64.length <= KITTY_CHUNK) return `\x1b_G${head};${base64}\x1b\\`;
	let out = "";
	for (let at = 0; at < base64.length; at += KITTY_CHUNK) {
		const more = at + KITTY_CHUNK < base64.length ? 1 : 0;
		const keys = at === 0 ? `${head},m=${more}` : `m=${more}`;
		out += `\x1b_G${keys};${base64.slice(at, at + KITTY_CHUNK)}\x1b\\`;
	}
	return out;
}

/** Shows a sent image at the cursor over `columns`×`rows` cells; the cursor stays where it is (`C=1`). */
export function kittyPlace(imageId: number, box: CellBox): string {
	return `${cursorTo(box)}\x1b_Ga=p,q=2,i=${imageId},c=${box.columns},r=${box.rows},C=1\x1b\\`;
}

/** Takes every placement off the screen; the images stay with the terminal for the next placement. */
export const KITTY_DELETE_PLACEMENTS = "\x1b_Ga=d,d=a,q=2\x1b\\";
/** Takes every image away, its data too (the UI went away, or p2 ends). */
export const KITTY_DELETE_ALL = "\x1b_Ga=d,d=A,q=2\x1b\\";

/** Frees one image's data at the terminal (it left the launcher's cache). */
export function kittyDelete(imageId: number): string {
	return `\x1b_Ga=d,d=I,i=${imageId},q=2\x1b\\`;
}

/** iTerm2's inline image at the box, scaled inside it; iTerm2 keeps no image between draws. */
export function iterm2Inline(base64: string, byteLength: number, box: CellBox): string {
	const keys = `inline=1;size=${byteLength};width=${box.columns};height=${box.rows};preserveAspectRatio=1`;
	return `${cursorTo(box)}\x1b]1337;File=${keys}:${base64}\x07`;
}

function cursorTo(box: CellBox): string {
	return `\x1b[${box.row + 1};${box.col + 1}H`;
}

/** Keeps the cursor (and its attributes) where the UI left it around the launcher's drawing. */
export function keepCursor(data: string): string {
	return data ? `\x1b7${data}\x1b8` : "";
}
