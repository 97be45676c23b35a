/**
 * One session's shared terminal on the server: the shell in the session's environment, its output kept as the
 * object's state (the latest MAX_OUTPUT characters, growing by appends), and who holds it. The shell is ended a
 * grace period after the last holder left (a reconnect or a reload keeps it).
 */
import { errorText } from "../../protocol/errors.ts";
import { type Environment, LiveState } from "../../server/plugin.ts";
import { MAX_OUTPUT, OUTPUT_SLACK, type TerminalSize, type TerminalState } from "./contract.ts";

/** Output waits this long to travel with what follows it (a burst becomes one append). */
const FLUSH_MS = 8;
/** A cut looks this far for a line's end, so a later viewer's replay starts at a line. */
const CUT_LOOK = 4096;

/** What the terminal needs of the server: where the session's shell runs, and where problems are told. */
export interface TerminalPlace {
	/** The session's environment and directory, or why there is none. */
	where(): { env: Environment; cwd: string };
	warn(text: string): void;
}

type Shell = ReturnType<Environment["openTerminal"]>;

/** What is kept of `output` after `text` is appended: the text and how many characters were cut before it. */
export function keptOutput(output: string, text: string): { kept: string; cut: number } | null {
	const length = output.length + text.length;
	if (length <= MAX_OUTPUT + OUTPUT_SLACK) return null;
	const whole = output + text;
	let cut = length - MAX_OUTPUT;
	const line = whole.indexOf("\n", cut);
	if (line >= 0 && line - cut < CUT_LOOK) cut = line + 1;
	return { kept: whole.slice(cut), cut };
}

export class SessionTerminal {
	readonly live: LiveState<TerminalState>;
	readonly #place: TerminalPlace;
	readonly #graceMs: number;
	readonly #gone: () => void;
	#shell: Shell | null = null;
	#holders = 0;
	#grace: ReturnType<typeof setTimeout> | undefined;
	#pending = "";
	#flush: ReturnType<typeof setTimeout> | undefined;
	#decoder = new TextDecoder();
	#closed = false;

	/** `gone`: the terminal ended (its last holder left long enough ago, or the server stops). */
	constructor(place: TerminalPlace, options: { graceMs: number; size: TerminalSize; gone: () => void }) {
		this.#place = place;
		this.#graceMs = options.graceMs;
		this.#gone = options.gone;
		this.live = new LiveState<TerminalState>({
			status: "none",
			shell: 0,
			cols: options.size.cols,
			rows: options.size.rows,
			output: "",
			dropped: 0,
			exitCode: null,
			error: null,
		});
	}

	get running(): boolean {
		return this.#shell !== null;
	}

	hold(): void {
		this.#holders++;
		clearTimeout(this.#grace);
		this.#grace = undefined;
	}

	release(): void {
		if (--this.#holders > 0 || this.#closed) return;
		this.#grace = setTimeout(() => this.close(), this.#graceMs);
		this.#grace.unref?.();
	}

	/** Starts a shell of this size unless one runs; a failure is the state's (`failed`, with why). */
	start(size: TerminalSize): void {
		if (this.#shell || this.#closed) return;
		const state = this.live.state;
		const shell = state.shell + 1;
		this.#decoder = new TextDecoder();
		this.live.update([
			{
				op: "set",
				path: [],
				value: { ...state, status: "running", shell, ...size, output: "", dropped: 0, exitCode: null, error: null },
			},
		]);
		try {
			const { env, cwd } = this.#place.where();
			this.#shell = env.openTerminal({
				cwd,
				cols: size.cols,
				rows: size.rows,
				onData: (chunk) => this.#take(shell, this.#decoder.decode(chunk, { stream: true })),
				onExit: (code) => this.#exited(shell, code, env.remote),
			});
		} catch (error) {
			this.#place.warn(`the session's terminal could not start: ${errorText(error)}`);
			this.live.update([
				{ op: "set", path: ["status"], value: "failed" },
				{ op: "set", path: ["error"], value: errorText(error).slice(0, 500) },
			]);
		}
	}

	write(data: string): boolean {
		if (!this.#shell) return false;
		this.#shell.write(data);
		return true;
	}

	resize(size: TerminalSize): void {
		const state = this.live.state;
		if (state.cols === size.cols && state.rows === size.rows) return;
		this.#send();
		this.live.update([
			{ op: "set", path: ["cols"], value: size.cols },
			{ op: "set", path: ["rows"], value: size.rows },
		]);
		this.#shell?.resize(size.cols, size.rows);
	}

	/** Ends the shell and forgets the terminal. */
	close(): void {
		if (this.#closed) return;
		this.#closed = true;
		clearTimeout(this.#grace);
		clearTimeout(this.#flush);
		this.#shell?.end();
		this.#shell = null;
		this.#gone();
	}

	#take(shell: number, text: string): void {
		if (shell !== this.live.state.shell || !text) return;
		this.#pending += text;
		// A flood is cut as it comes: what is waiting never holds more than the state keeps.
		if (this.#pending.length > MAX_OUTPUT) this.#pending = this.#pending.slice(-MAX_OUTPUT);
		this.#flush ??= setTimeout(() => this.#send(), FLUSH_MS);
	}

	/** What waits goes out: as an append, or as the kept part when the output grew past its bound. */
	#send(): void {
		clearTimeout(this.#flush);
		this.#flush = undefined;
		const text = this.#pending;
		if (!text) return;
		this.#pending = "";
		const state = this.live.state;
		const kept = keptOutput(state.output, text);
		if (!kept) {
			this.live.update([{ op: "append", path: ["output"], text }]);
			return;
		}
		this.live.update([
			{ op: "set", path: ["output"], value: kept.kept },
			{ op: "set", path: ["dropped"], value: state.dropped + kept.cut },
		]);
	}

	#exited(shell: number, code: number | null, remote: boolean): void {
		if (shell !== this.live.state.shell) return;
		this.#take(shell, this.#decoder.decode());
		this.#send();
		this.#shell = null;
		const broke = remote && code === null;
		this.live.update([
			{ op: "set", path: ["status"], value: "exited" },
			{ op: "set", path: ["exitCode"], value: code },
			{
				op: "set",
				path: ["error"],
				value: broke
					? "the connection to the session's machine could not be made or broke (the owner's /envs tests it)"
					: null,
			},
		]);
	}
}
