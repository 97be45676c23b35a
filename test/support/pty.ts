import { Terminal as Xterm } from "@xterm/headless";

export interface PtyRun {
	readonly term: Xterm;
	/** The visible screen as plain lines (right-trimmed). */
	screen(): string[];
	type(data: string): void;
	waitFor(predicate: (screen: string) => boolean, what: string, timeoutMs?: number): Promise<void>;
	readonly exited: Promise<number>;
	readonly pid: number;
	/** Every byte the program wrote, decoded, as the terminal received it. */
	raw(): string;
	kill(): void;
}

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
	const proc = Bun.spawn(cmd, {
		cwd: options.cwd,
		env: options.env,
		terminal: {
			cols,
			rows,
			data(_t, data) {
				const copy = new Uint8Array(data);
				raw += decoder.decode(copy, { stream: true });
				pending = pending.then(() => new Promise<void>((resolve) => term.write(copy, resolve)));
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
	return {
		term,
		screen,
		type(data) {
			proc.terminal?.write(data);
		},
		async waitFor(predicate, what, timeoutMs = 15000) {
			const deadline = Date.now() + timeoutMs;
			for (;;) {
				await pending;
				const text = screen().join("\n");
				if (predicate(text)) return;
				if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; screen:\n${text}`);
				await Bun.sleep(25);
			}
		},
		exited: proc.exited.then(async (code) => {
			await Bun.sleep(50);
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
