import { Terminal as Xterm } from "@xterm/headless";

export interface PtyRun {
	readonly term: Xterm;
	/** The visible screen as plain lines (right-trimmed). */
	screen(): string[];
	type(data: string): void;
	waitFor(predicate: (screen: string) => boolean, what: string, timeoutMs?: number): Promise<void>;
	/**
	 * Types `data` again and again (paced, not on every poll) until the screen satisfies `predicate`: for a key
	 * that must be pressed an unknown number of times, e.g. Ctrl+Home until the oldest page has loaded.
	 */
	typeUntil(data: string, predicate: (screen: string) => boolean, what: string, timeoutMs?: number): Promise<void>;
	/** Waits until the program has written `text` at or after offset `from` of `raw()`. */
	waitForOutput(text: string, from: number, what: string, timeoutMs?: number): Promise<void>;
	readonly exited: Promise<number>;
	readonly pid: number;
	/** Every byte the program wrote, decoded, as the terminal received it. */
	raw(): string;
	kill(): void;
}

/** How often `typeUntil` types its key again while the screen is not there yet. */
const TYPE_AGAIN_MS = 150;

/** Runs a command in a real pseudo-terminal, read through a headless terminal emulator that answers queries. */
export function runInPty(
	cmd: string[],
	options: { env: Record<string, string>; cols?: number; rows?: number; cwd?: string },
): PtyRun {
	const cols = options.cols ?? 100;
	const rows = options.rows ?? 30;
	const term = new Xterm({ cols, rows, allowProposedApi: true });
	let pending = Promise.resolve();
	const decoder = new TextDecoder();
	let raw = "";
	/** Waiters woken each time the emulator has taken in more output (a screen may have changed). */
	const onScreen = new Set<() => void>();
	let closed!: () => void;
	/** The pty's end of file: everything the program wrote has been read. */
	const drained = new Promise<void>((resolve) => {
		closed = resolve;
	});
	const proc = Bun.spawn(cmd, {
		cwd: options.cwd,
		env: options.env,
		terminal: {
			cols,
			rows,
			data(_t, data) {
				const copy = new Uint8Array(data);
				raw += decoder.decode(copy, { stream: true });
				pending = pending
					.then(() => new Promise<void>((resolve) => term.write(copy, resolve)))
					.then(() => {
						for (const wake of [...onScreen]) wake();
					});
			},
			exit() {
				closed();
			},
		},
	});
	// The emulator's answers (DA, colors, cursor reports) go back to the program, as a real terminal's do.
	term.onData((data) => proc.terminal?.write(data));
	const screen = () => {
		const buffer = term.buffer.active;
		const lines: string[] = [];
		for (let i = 0; i < rows; i++) lines.push(buffer.getLine(buffer.viewportY + i)?.translateToString(true) ?? "");
		return lines;
	};
	async function waitFor(predicate: (screen: string) => boolean, what: string, timeoutMs = 15000) {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			await pending;
			const text = screen().join("\n");
			if (predicate(text)) return;
			if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; screen:\n${text}`);
			// Looked at again as soon as more output has been taken in, or after a while to check the deadline.
			await new Promise<void>((resolve) => {
				const wake = () => {
					onScreen.delete(wake);
					clearTimeout(timer);
					resolve();
				};
				const timer = setTimeout(wake, 250);
				onScreen.add(wake);
			});
		}
	}
	return {
		term,
		screen,
		type(data) {
			proc.terminal?.write(data);
		},
		waitFor,
		async typeUntil(data, predicate, what, timeoutMs = 30_000) {
			let typedAt = 0;
			await waitFor(
				(text) => {
					if (predicate(text)) return true;
					if (Date.now() - typedAt >= TYPE_AGAIN_MS) {
						proc.terminal?.write(data);
						typedAt = Date.now();
					}
					return false;
				},
				what,
				timeoutMs,
			);
		},
		async waitForOutput(text, from, what, timeoutMs = 15000) {
			const deadline = Date.now() + timeoutMs;
			while (!raw.includes(text, from)) {
				if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} in the output`);
				await Bun.sleep(25);
			}
		},
		exited: proc.exited.then(async (code) => {
			await drained;
			await pending;
			return code;
		}),
		pid: proc.pid,
		raw: () => raw,
		kill() {
			proc.kill();
		},
	};
}
