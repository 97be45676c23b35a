/**
 * What a hostile program in the panel's shell may print (test/plugins/terminal): every family of control
 * sequence that could reach the person's terminal, and what the panel draws of it.
 */
import { Emulator, emulatorClass } from "../../../src/plugins/terminal/tui-emulator.ts";
import { screenLines } from "../../../src/plugins/terminal/tui-screen.ts";

export const CLIPBOARD_SECRET = "stolen-clipboard";
/** The secret in base64, as OSC 52 carries it (the sandbox has no btoa). */
export const CLIPBOARD_BASE64 = "c3RvbGVuLWNsaXBib2FyZA==";

export const HOSTILE_OUTPUT = [
	// A huge line (it wraps; the rest follows on the last page).
	`${"x".repeat(100_000)}\r\n`,
	"plain \x1b[1;31mred bold\x1b[0m \x1b[38;2;1;2;3mrgb\x1b[0m \x1b[48;5;200mbg\x1b[0m\r\n",
	// OSC 52: set the clipboard.
	`\x1b]52;c;${CLIPBOARD_BASE64}\x07`,
	// OSC 8: a link whose text hides where it goes.
	"\x1b]8;;https://evil.example/\x1b\\link-text\x1b]8;;\x1b\\\r\n",
	// DCS: a terminfo query, a sixel image.
	"\x1bP+q544e\x1b\\\x1bPqSIXEL-PAYLOAD\x1b\\",
	// Titles.
	"\x1b]0;evil-title\x07\x1b]2;evil-title-2\x1b\\",
	// Queries: cursor position, device attributes, window size, title report, colors.
	"\x1b[6n\x1b[c\x1b[>c\x1b[18t\x1b[21t\x1b]10;?\x07\x1b]11;?\x1b\\",
	// 8-bit C1 controls as characters: CSI, OSC, ST.
	"\u009b31mC1-CSI\u009d0;c1-title\u009c after-c1\r\n",
	// APC and PM strings, mouse reporting and bracketed paste modes.
	"\x1b_APC-payload\x1b\\\x1b^PM-payload\x1b\\\x1b[?1000h\x1b[?2004h",
	"wide 日本 done\r\n",
].join("");

/** Every escape of the panel's lines that is not SGR. */
export const NOT_SGR = /\x1b(?!\[[0-9;]*m)/;
const SGR = /\x1b\[[0-9;]*m/g;
/** A control character left after SGR is taken out. */
export const CONTROL = /[\x00-\x1f\x7f-\x9f]/;

export function withoutSgr(line: string): string {
	return line.replace(SGR, "");
}

/** The panel's lines after the hostile output, at 80×24 drawn 60 wide, with the modes it set. */
export async function drawHostile(): Promise<{ lines: string[]; modes: ReturnType<Emulator["modes"]> }> {
	let parsed: () => void = () => {};
	const emulator = new Emulator(emulatorClass(), () => parsed());
	const done = new Promise<void>((resolve) => {
		parsed = resolve;
	});
	emulator.follow({
		status: "running",
		shell: 1,
		cols: 80,
		rows: 24,
		output: HOSTILE_OUTPUT,
		dropped: 0,
		exitCode: null,
		error: null,
	});
	await done;
	const term = emulator.terminal;
	if (!term) throw new Error("no emulator");
	const lines = screenLines(term, 60, { cursor: true });
	const modes = emulator.modes();
	emulator.dispose();
	return { lines, modes };
}
