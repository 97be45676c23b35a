import { decodeKittyPrintable } from "@earendil-works/pi-tui";

/**
 * Text from the server (answers, tool output, file names, titles) is shown as text: control characters are
 * made visible as their Unicode control pictures before layout, so nothing the server sends reaches the
 * terminal as a sequence. Tabs become spaces; newlines stay where `keepNewlines` asks.
 */
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

export function visibleText(text: string, keepNewlines = true): string {
	const shown = text
		.replaceAll("\r\n", "\n")
		.replaceAll("\t", "    ")
		.replace(CONTROLS, (c) => {
			const code = c.charCodeAt(0);
			if (code === 0x0d) return "";
			if (code < 0x20) return String.fromCharCode(0x2400 + code);
			if (code === 0x7f) return "\u2421";
			return "\ufffd";
		});
	return keepNewlines ? shown : shown.replaceAll("\n", " ");
}

/** pi's token counts: raw below 1000, then 1.2k, 345k, 1.2M, 12M. */
export function formatTokens(n: number): string {
	if (n < 1000) return String(Math.round(n));
	if (n < 10_000) return `${(n / 1000).toFixed(1)}k`;
	if (n < 1_000_000) return `${Math.round(n / 1000)}k`;
	if (n < 10_000_000) return `${(n / 1_000_000).toFixed(1)}M`;
	return `${Math.round(n / 1_000_000)}M`;
}

/** A path under the home directory, shown with `~` as pi does. */
export function shortenHome(path: string, home: string | undefined): string {
	if (!home || home === "/") return path;
	if (path === home) return "~";
	return path.startsWith(`${home}/`) ? `~${path.slice(home.length)}` : path;
}

/** The character a key press types, as a filter or input takes it (a kitty key report included); "" for a key. */
export function typedChar(data: string): string {
	return decodeKittyPrintable(data) ?? (data.length === 1 && data >= " " && data !== "\x7f" ? data : "");
}

/** `12345` → `12,345`, as pi writes counts; by hand, since the sandbox's Intl does not group digits. */
export function groupDigits(n: number): string {
	const [whole = "0", fraction] = String(Math.trunc(Math.abs(n) * 1000) / 1000).split(".");
	const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
	return `${n < 0 ? "-" : ""}${grouped}${fraction ? `.${fraction}` : ""}`;
}
