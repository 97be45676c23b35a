/**
 * A key as a shell's terminal sends it. The person's terminal may report keys in the Kitty keyboard protocol or
 * xterm's modifyOtherKeys (pi-tui asks for them); a program in the panel's shell expects what a plain xterm
 * sends, so a key is named (pi-tui's parser) and written again the classic way. A paste goes bracketed when the
 * program asked for it, and as typed text otherwise.
 */
import { decodeKittyPrintable, isKeyRelease, parseKey } from "@earendil-works/pi-tui";

export interface KeyModes {
	/** DECCKM: arrows as `ESC O A` (vim, less). */
	readonly applicationCursorKeys: boolean;
	readonly bracketedPaste: boolean;
}

const PASTE_START = "\x1b[200~";
const PASTE_END = "\x1b[201~";

/** Keys with a letter after CSI (or SS3 in application mode): arrows, home, end. */
const LETTER_KEYS: Readonly<Record<string, string>> = {
	up: "A",
	down: "B",
	right: "C",
	left: "D",
	home: "H",
	end: "F",
};
/** Keys written `CSI n ~`. */
const TILDE_KEYS: Readonly<Record<string, number>> = {
	insert: 2,
	delete: 3,
	pageUp: 5,
	pageDown: 6,
	f5: 15,
	f6: 17,
	f7: 18,
	f8: 19,
	f9: 20,
	f10: 21,
	f11: 23,
	f12: 24,
};
const SS3_KEYS: Readonly<Record<string, string>> = { f1: "P", f2: "Q", f3: "R", f4: "S" };
const PLAIN_KEYS: Readonly<Record<string, string>> = {
	enter: "\r",
	tab: "\t",
	space: " ",
	backspace: "\x7f",
	escape: "\x1b",
};
/** Ctrl with a symbol: the C0 control a classic terminal sends. */
const CTRL_SYMBOLS: Readonly<Record<string, string>> = {
	space: "\x00",
	"@": "\x00",
	"[": "\x1b",
	"\\": "\x1c",
	"]": "\x1d",
	"^": "\x1e",
	"-": "\x1f",
	_: "\x1f",
	"/": "\x1f",
	backspace: "\x08",
};

interface Named {
	readonly key: string;
	readonly shift: boolean;
	readonly ctrl: boolean;
	readonly alt: boolean;
	readonly super: boolean;
}

/** pi-tui's key name (`ctrl+shift+up`) in parts; the key itself may be `+`. */
function named(id: string): Named {
	const parts = id.split("+");
	let key = parts.pop() ?? "";
	if (key === "" && parts.at(-1) === "") {
		parts.pop();
		key = "+";
	}
	return {
		key,
		shift: parts.includes("shift"),
		ctrl: parts.includes("ctrl"),
		alt: parts.includes("alt"),
		super: parts.includes("super"),
	};
}

/** xterm's modifier parameter: 1 + shift 1 + alt 2 + ctrl 4. */
function modifierParam(k: Named): number {
	return 1 + (k.shift ? 1 : 0) + (k.alt ? 2 : 0) + (k.ctrl ? 4 : 0);
}

/** A named key as a classic xterm writes it; "" for one it has no way to write. */
function classic(k: Named, modes: KeyModes): string {
	if (k.super) return "";
	const mod = modifierParam(k);
	const letter = LETTER_KEYS[k.key];
	if (letter !== undefined) {
		if (mod > 1) return `\x1b[1;${mod}${letter}`;
		return modes.applicationCursorKeys ? `\x1bO${letter}` : `\x1b[${letter}`;
	}
	const tilde = TILDE_KEYS[k.key];
	if (tilde !== undefined) return mod > 1 ? `\x1b[${tilde};${mod}~` : `\x1b[${tilde}~`;
	const ss3 = SS3_KEYS[k.key];
	if (ss3 !== undefined) return mod > 1 ? `\x1b[1;${mod}${ss3}` : `\x1bO${ss3}`;
	if (k.key === "tab" && k.shift) return k.alt ? "\x1b\x1b[Z" : "\x1b[Z";
	const prefix = k.alt ? "\x1b" : "";
	if (k.ctrl) {
		const symbol = Object.hasOwn(CTRL_SYMBOLS, k.key) ? CTRL_SYMBOLS[k.key] : undefined;
		if (symbol !== undefined) return prefix + symbol;
		if (/^[a-z]$/.test(k.key)) return prefix + String.fromCharCode(k.key.charCodeAt(0) - 96);
	}
	// Enter, Tab and Escape with Ctrl are themselves to a classic terminal.
	const plain = Object.hasOwn(PLAIN_KEYS, k.key) ? PLAIN_KEYS[k.key] : undefined;
	if (plain !== undefined) return prefix + plain;
	if (k.ctrl) return "";
	if ([...k.key].length === 1) return prefix + (k.shift ? k.key.toUpperCase() : k.key);
	return "";
}

/** A reported key: the Kitty protocol's `CSI … u`, modifyOtherKeys' `CSI 27 ; … ~`, or a key with an event type. */
const REPORTED_KEY = /^\x1b\[(?:[\d:;]*u|27;\d+;\d+~|[\d;]*:\d[\d;:]*[A-Za-z~])$/;

/** What the shell receives for one key press or paste from the person's terminal ("" for nothing). */
export function keyBytes(data: string, modes: KeyModes): string {
	if (data.startsWith(PASTE_START) && data.endsWith(PASTE_END)) {
		// Text, as typed: an escape in it could end the bracket early or press keys.
		const text = data.slice(PASTE_START.length, -PASTE_END.length).replace(/[\x1b\x9b]/g, "");
		return modes.bracketedPaste ? `${PASTE_START}${text}${PASTE_END}` : text;
	}
	if (isKeyRelease(data)) return "";
	const printable = decodeKittyPrintable(data);
	if (printable !== undefined) return printable;
	const id = parseKey(data);
	if (id !== undefined) return classic(named(id), modes);
	// Unknown to the parser: a reported key it cannot name is dropped; anything else (text) goes as it came.
	return REPORTED_KEY.test(data) || data.startsWith("\x1b[<") ? "" : data;
}
