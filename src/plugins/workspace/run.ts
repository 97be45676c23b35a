/** A program run by argv (no shell) in a directory, with its output and its time bounded. */

export interface Ran {
	/** The exit code; null when it was stopped (time or output ran out) or could not start. */
	readonly code: number | null;
	readonly out: string;
	/** The output reached its bound: what came is kept, the program was stopped. */
	readonly full: boolean;
	readonly timedOut: boolean;
}

export interface RunOptions {
	readonly cwd: string;
	readonly input?: string;
	readonly maxBytes: number;
	readonly timeoutMs: number;
}

/** Git without prompts, pagers, optional locks (the agent may be committing), hooks it could run, or colors. */
export const GIT = [
	"git",
	"--no-pager",
	"-c",
	"core.quotepath=off",
	"-c",
	"core.fsmonitor=false",
	"-c",
	"color.ui=never",
] as const;

const GIT_ENV = { GIT_OPTIONAL_LOCKS: "0", GIT_TERMINAL_PROMPT: "0", LC_ALL: "C" };

/** Whether a program is on the server's PATH (ripgrep is optional). */
export function installed(program: string): boolean {
	return Bun.which(program, { PATH: process.env.PATH ?? "" }) !== null;
}

export async function run(argv: readonly string[], options: RunOptions): Promise<Ran> {
	let proc: ReturnType<typeof Bun.spawn>;
	try {
		proc = Bun.spawn([...argv], {
			cwd: options.cwd,
			stdin: options.input === undefined ? "ignore" : new TextEncoder().encode(options.input),
			stdout: "pipe",
			stderr: "ignore",
			env: { ...process.env, ...GIT_ENV },
		});
	} catch {
		return { code: null, out: "", full: false, timedOut: false };
	}
	let timedOut = false;
	const timer = setTimeout(() => {
		timedOut = true;
		proc.kill();
	}, options.timeoutMs);
	const chunks: Uint8Array[] = [];
	let bytes = 0;
	let full = false;
	const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
	try {
		for (;;) {
			const { done, value } = await reader.read();
			if (done) break;
			const room = options.maxBytes - bytes;
			chunks.push(value.byteLength > room ? value.subarray(0, room) : value);
			bytes += Math.min(room, value.byteLength);
			if (bytes >= options.maxBytes) {
				full = true;
				proc.kill();
				break;
			}
		}
	} finally {
		reader.releaseLock();
	}
	const code = await proc.exited;
	clearTimeout(timer);
	const out = new TextDecoder().decode(Buffer.concat(chunks));
	return { code: full || timedOut ? null : code, out, full, timedOut };
}
