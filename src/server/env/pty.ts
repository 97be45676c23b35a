/**
 * A program in a pseudo-terminal on this machine (Bun's `terminal` option of `spawn`): the terminal panel's
 * shell, or the `ssh -tt` that carries one to a session's SSH machine (ssh passes a resize on as its window
 * change).
 */
import type { TerminalProcess, TerminalRequest } from "./environment.ts";

/** How long a hung-up program has to end before it is killed. */
const HANG_UP_GRACE_MS = 2000;

/** A terminal's size as the kernel takes it: whole cells, at least one, at most what any screen has. */
function cells(n: number, max: number): number {
	return Math.max(1, Math.min(max, Math.floor(n)));
}

export function spawnInTerminal(
	argv: readonly string[],
	options: { readonly cwd: string; readonly env: Record<string, string | undefined> },
	request: Omit<TerminalRequest, "cwd">,
): TerminalProcess {
	let exited = false;
	const proc = Bun.spawn([...argv], {
		cwd: options.cwd,
		env: options.env,
		terminal: {
			cols: cells(request.cols, 1000),
			rows: cells(request.rows, 500),
			data: (_terminal, data) => {
				if (!exited) request.onData(data);
			},
		},
	});
	let killTimer: ReturnType<typeof setTimeout> | undefined;
	void proc.exited.then((code) => {
		exited = true;
		clearTimeout(killTimer);
		proc.terminal?.close();
		request.onExit(proc.signalCode ? null : code);
	});
	return {
		write(data) {
			if (!exited) proc.terminal?.write(data);
		},
		resize(cols, rows) {
			if (!exited) proc.terminal?.resize(cells(cols, 1000), cells(rows, 500));
		},
		end() {
			if (exited || killTimer) return;
			proc.kill("SIGHUP");
			killTimer = setTimeout(() => proc.kill("SIGKILL"), HANG_UP_GRACE_MS);
			killTimer.unref?.();
		},
	};
}
