import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentTool } from "@earendil-works/pi-agent-core";
import { num, obj, opt, str } from "@earendil-works/pi-schema";
import type { Environment } from "../../env/environment.ts";
import { formatSize, MAX_BYTES, MAX_LINES, TailBuffer } from "./truncate.ts";

const parameters = obj({
	command: str({ description: "Shell command to execute" }),
	timeout: opt(num({ description: "Timeout in seconds (optional, no default timeout)" })),
});

export interface BashDetails {
	exitCode: number | null;
	truncated: boolean;
	fullOutputPath?: string;
}

/** How often streamed output is reported while a command runs. */
const UPDATE_EVERY_MS = 100;

export interface CommandRun {
	/** The output's tail (pi's truncation), with a note where it was cut. */
	readonly output: string;
	readonly exitCode: number | null;
	readonly truncated: boolean;
	readonly fullOutputPath?: string;
	readonly ended: "exit" | "aborted" | "timeout";
}

/**
 * Runs `command` with bash in its own process group on `env`, streaming the visible tail to `onOutput` (at most
 * every 100 ms); abort and timeout end the whole group. A truncated output is saved whole under `spillDir` (on
 * the server). A connection that breaks mid-command rejects with its error.
 */
export async function runCommand(options: {
	env: Environment;
	command: string;
	cwd: string;
	spillDir: string;
	spillName: string;
	signal?: AbortSignal;
	timeoutSeconds?: number;
	onOutput?: (tail: string, truncated: boolean) => void;
}): Promise<CommandRun> {
	const { command, cwd, spillDir, signal, onOutput } = options;
	if (signal?.aborted) return { output: "", exitCode: null, truncated: false, ended: "aborted" };
	const tail = new TailBuffer();
	const full: string[] = [];
	// One decoder for the stream: a character split between two chunks is not broken in two.
	const decoder = new TextDecoder();
	let updateTimer: ReturnType<typeof setTimeout> | undefined;
	const report = () => {
		updateTimer = undefined;
		const snap = tail.snapshot();
		onOutput?.(snap.content, snap.truncated);
	};
	const take = (text: string) => {
		if (!text) return;
		tail.append(text);
		full.push(text);
		if (onOutput && !updateTimer) updateTimer = setTimeout(report, UPDATE_EVERY_MS);
	};
	let end: Awaited<ReturnType<Environment["exec"]>>;
	try {
		end = await options.env.exec({
			command,
			cwd,
			...(signal ? { signal } : {}),
			...(options.timeoutSeconds ? { timeoutSeconds: options.timeoutSeconds } : {}),
			onData: (chunk) => take(decoder.decode(chunk, { stream: true })),
		});
	} finally {
		if (updateTimer) clearTimeout(updateTimer);
	}
	take(decoder.decode());
	const snap = tail.snapshot();
	let output = snap.content;
	let fullOutputPath: string | undefined;
	if (snap.truncated) {
		const path = join(spillDir, options.spillName);
		try {
			mkdirSync(spillDir, { recursive: true, mode: 0o700 });
			writeFileSync(path, full.join(""), { mode: 0o600 });
			fullOutputPath = path;
		} catch {
			// Said in the note below.
		}
		const start = snap.totalLines - snap.outputLines + 1;
		const limit = snap.by === "bytes" ? ` (${formatSize(MAX_BYTES)} limit)` : "";
		const where = fullOutputPath ? `Full output: ${fullOutputPath}` : "Full output could not be saved";
		output += `\n\n[Showing lines ${start}-${snap.totalLines} of ${snap.totalLines}${limit}. ${where}]`;
	}
	return {
		output,
		exitCode: end.exitCode,
		truncated: snap.truncated,
		...(fullOutputPath ? { fullOutputPath } : {}),
		ended: end.ended,
	};
}

export function bashTool(env: Environment, cwd: string, spillDir: string): AgentTool<typeof parameters, BashDetails> {
	return {
		name: "bash",
		label: "bash",
		description: `Execute a bash command in the current working directory. Returns stdout and stderr. Output is truncated to the last ${MAX_LINES} lines or ${MAX_BYTES / 1024}KB (whichever is hit first); the full output is then saved to a file. Optionally give a timeout in seconds.`,
		parameters,
		async execute(id, { command, timeout }, signal, onUpdate) {
			if (signal?.aborted) throw new Error("Command aborted");
			const run = await runCommand({
				env,
				command,
				cwd,
				spillDir,
				spillName: `bash-${id.replace(/[^A-Za-z0-9_-]/g, "_")}.log`,
				...(signal ? { signal } : {}),
				...(timeout ? { timeoutSeconds: timeout } : {}),
				onOutput: (text, truncated) =>
					onUpdate?.({ content: [{ type: "text", text }], details: { exitCode: null, truncated } }),
			});
			const details: BashDetails = {
				exitCode: run.exitCode,
				truncated: run.truncated,
				...(run.fullOutputPath ? { fullOutputPath: run.fullOutputPath } : {}),
			};
			const text = run.output;
			const status = (s: string) => `${text ? `${text}\n\n` : ""}${s}`;
			if (run.ended === "aborted") throw new Error(status("Command aborted"));
			if (run.ended === "timeout") throw new Error(status(`Command timed out after ${timeout} seconds`));
			if (run.exitCode === null) throw new Error(status("Command terminated without an exit code"));
			if (run.exitCode !== 0) {
				return {
					content: [{ type: "text", text: status(`Command exited with code ${run.exitCode}`) }],
					details,
					isError: true,
				};
			}
			return { content: [{ type: "text", text: text || "(no output)" }], details };
		},
	};
}
