/**
 * The transcript the UI leaves on the terminal when it exits (pi's fullscreenExitOutput "transcript"): the
 * screen's lines with their colors, and nothing else of the terminal's language (pi-tui's prompt marks, links
 * and cursor marker are for the live screen), bounded to what the channel carries: the latest lines win.
 */
import { MAX_EXIT_TEXT_CHARS, MAX_OUTPUT_CHARS } from "../protocol/channel-kinds.ts";

/** Every escape sequence: CSI, OSC, DCS/SOS/PM/APC strings (to their end), and two-character escapes. */
const ESCAPES =
	/\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][\s\S]*?(?:\x07|\x1b\\|$)|\x1b[P^_X][\s\S]*?(?:\x07|\x1b\\|$)|\x1b[\s\S]?/g;
const SGR = /^\x1b\[[0-9;:]*m$/;
/** C0 controls other than ESC (kept for SGR), and C1 controls. */
const CONTROLS = /[\x00-\x1a\x1c-\x1f\x7f-\x9f]/g;
/** What a message's envelope and JSON escaping may add: SGR's ESC is six characters in JSON. */
const JSON_BUDGET = MAX_OUTPUT_CHARS - 4096;

/** One rendered line as plain text with its colors. */
export function exitLine(line: string): string {
	return line
		.replace(ESCAPES, (sequence) => (SGR.test(sequence) ? sequence : ""))
		.replace(CONTROLS, "")
		.trimEnd();
}

/** The lines as one text, the oldest left out when it would not fit (with a line that says so). */
export function exitText(lines: readonly string[]): string {
	const kept: string[] = [];
	let chars = 0;
	let json = 0;
	for (let i = lines.length - 1; i >= 0; i--) {
		const line = exitLine(lines[i]!);
		const size = line.length + 1;
		const encoded = JSON.stringify(line).length;
		if (chars + size > MAX_EXIT_TEXT_CHARS - 100 || json + encoded > JSON_BUDGET - 100) {
			kept.push(`… ${i + 1} earlier lines left out`);
			break;
		}
		kept.push(line);
		chars += size;
		json += encoded;
	}
	return kept.reverse().join("\n");
}
