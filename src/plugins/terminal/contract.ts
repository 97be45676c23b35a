import { type } from "../../protocol/ark.ts";
import { SessionId } from "../../protocol/common.ts";
import { defineContract, method } from "../../protocol/contract.ts";
import { lazy } from "../../protocol/lazy.ts";

/** The output kept for a viewer who comes later (a new screen, a reconnect): the last this many characters. */
export const MAX_OUTPUT = 256 * 1024;
/** Output may grow past MAX_OUTPUT by this much before it is cut back (a cut resends what is kept). */
export const OUTPUT_SLACK = 128 * 1024;
/** The largest pseudo-terminal a panel asks for. */
export const MAX_COLS = 500;
export const MAX_ROWS = 200;
/** One write's keys or paste, at most. */
export const MAX_WRITE = 64 * 1024;

export const TerminalSize = lazy(() =>
	type({ cols: `1 <= number.integer <= ${MAX_COLS}`, rows: `1 <= number.integer <= ${MAX_ROWS}` }),
);
export type TerminalSize = typeof TerminalSize.infer;

export const TerminalState = lazy(() =>
	type({
		/** `none`: no shell yet (or it ended and none was started since); `failed`: it could not start. */
		status: "'none' | 'running' | 'exited' | 'failed'",
		/** Counts the shells started: a new one starts a fresh screen. */
		shell: "number.integer >= 0",
		cols: `1 <= number.integer <= ${MAX_COLS}`,
		rows: `1 <= number.integer <= ${MAX_ROWS}`,
		/**
		 * What the shell wrote (its escape sequences included; the panel's emulator reads them), the latest part:
		 * `dropped` characters before it were cut off. It grows by appends.
		 */
		output: `string <= ${MAX_OUTPUT + OUTPUT_SLACK}`,
		dropped: "number.integer >= 0",
		exitCode: "number.integer | null",
		error: "string <= 500 | null",
	}),
);
export type TerminalState = typeof TerminalState.infer;

const participant = { state: TerminalState, methods: ["start", "write", "resize"] as const };

/**
 * The session's terminal: one shell on the session's machine (its environment), shared by everyone who may run
 * commands there, as tmux shares one: all see the same screen, each can type. `start` starts a shell when none
 * runs, `write` types, `resize` sets the size (the last one asked wins, as with tmux's latest window).
 * View guests never open it: a shell shows the machine's files, which view access does not include.
 */
export const terminalContract = defineContract({
	name: "terminal",
	version: 1,
	input: lazy(() => type({ session: SessionId })),
	methods: {
		start: method(TerminalSize, type("null")),
		write: method(
			lazy(() => type({ data: `string <= ${MAX_WRITE}` })),
			type("null"),
		),
		resize: method(TerminalSize, type("null")),
	},
	variants: { deviceOwner: participant, owner: participant, full: participant, view: null },
});
