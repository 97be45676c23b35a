import { truncateToWidth } from "@earendil-works/pi-tui";
import { ThemedLines } from "./themed-lines.ts";

/** pi's brand colors do not follow the theme: coral, blue and yellow, in 24-bit or their 256-color indexes. */
const BRAND = {
	truecolor: {
		coral: "38;2;228;138;122",
		blue: "38;2;79;142;179",
		blueBg: "48;2;79;142;179",
		yellow: "38;2;234;182;93",
	},
	"256color": { coral: "38;5;174", blue: "38;5;67", blueBg: "48;5;67", yellow: "38;5;179" },
} as const;

export interface HeaderHint {
	readonly key: string;
	readonly description: string;
}

export interface HeaderData {
	/** Where pi shows its version: the server and who this person is there. */
	readonly place: string;
	/** Only keys that are bound now. */
	readonly hints: readonly HeaderHint[];
	/** The line under the hints (pi: "Press ctrl+o to show full startup help…"); empty for none. */
	readonly help: string;
	/** Expanded (Ctrl+O): one hint per line. */
	readonly expanded: boolean;
	/** pi's quietStartup: no header at all. */
	readonly hidden?: boolean;
}

/** pi's startup header: the two-row logo, the place line, the key hints and the help line. */
export class Header extends ThemedLines<HeaderData> {
	protected build(width: number): string[] {
		if (this.data.hidden) return [];
		return this.#lines().map((line) => truncateToWidth(line, width, ""));
	}

	#lines(): string[] {
		const t = this.theme.current;
		const b = BRAND[t.mode];
		const sgr = (code: string, text: string) => `\x1b[${code}m${text}`;
		const top = `${sgr(`${b.coral};${b.blueBg}`, "▀")}\x1b[49m${sgr(b.coral, "▀█")}\x1b[39m `;
		const bottom = `${sgr(b.blue, "█▀")}\x1b[39m ${sgr(b.yellow, "█")}\x1b[39m`;
		const { hints, place, help, expanded } = this.data;
		const hint = (h: HeaderHint) => `${t.fg("dim", h.key)} ${t.fg("muted", h.description)}`;
		const lines = [" ", ` ${top} ${t.fg("dim", place)}`];
		if (expanded) {
			const [first, ...rest] = hints;
			lines.push(` ${bottom}${first ? ` ${hint(first)}` : ""}`);
			for (const h of rest) lines.push(` ${hint(h)}`);
		} else {
			lines.push(` ${bottom} ${hints.map(hint).join(t.fg("muted", " · "))}`);
			if (help) lines.push(` ${t.fg("dim", help)}`);
		}
		return lines;
	}
}
