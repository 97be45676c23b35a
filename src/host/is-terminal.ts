/**
 * Whether a file descriptor is a terminal, asked before anything else runs. `process.stdin.isTTY` would
 * answer too, but the first look at `process.stdin` loads Node's tty and stream modules (15–20 ms), and start-up
 * decides at once whether to start the guest worker and this device's server. Bun's tty binding answers with
 * one `isatty` call; where it is missing, the streams answer.
 */
interface TtyBinding {
	isTTY(fd: number): boolean;
}

function ttyBinding(): TtyBinding | undefined {
	try {
		const binding: unknown = (process as unknown as { binding(name: string): unknown }).binding("tty_wrap");
		if (typeof binding === "object" && binding !== null && typeof Reflect.get(binding, "isTTY") === "function")
			return binding as TtyBinding;
	} catch {
		// Not this runtime's: the streams answer.
	}
	return undefined;
}

/** Whether both standard input and standard output are terminals. */
export function onTerminal(): boolean {
	const binding = ttyBinding();
	if (binding) return binding.isTTY(0) && binding.isTTY(1);
	return Boolean(process.stdin.isTTY && process.stdout.isTTY);
}
