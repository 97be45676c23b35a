import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentTool } from "@earendil-works/pi-agent-core";
import { num, obj, opt, str } from "@earendil-works/pi-schema";
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

function killGroup(pid: number | undefined): void {
	if (!pid) return;
	try {
		process.kill(-pid, "SIGKILL");
	} catch {
		// Already gone.
	}
}

export function bashTool(cwd: string, spillDir: string): AgentTool<typeof parameters, BashDetails> {
	return {
		name: "bash",
		label: "bash",
		description: `Execute a bash command in the current working directory. Returns stdout and stderr. Output is truncated to the last ${MAX_LINES} lines or ${MAX_BYTES / 1024}KB (whichever is hit first); the full output is then saved to a file. Optionally give a timeout in seconds.`,
		parameters,
		execute(id, { command, timeout }, signal, onUpdate) {
			return new Promise((resolve, reject) => {
				if (signal?.aborted) return reject(new Error("Command aborted"));
				const tail = new TailBuffer();
				const full: string[] = [];
				let spilled = false;
				const child = spawn("bash", ["-c", command], {
					cwd,
					detached: true,
					stdio: ["ignore", "pipe", "pipe"],
					env: { ...process.env, PAGER: "cat", GIT_PAGER: "cat" },
				});
				let timedOut = false;
				let aborted = false;
				let timer: ReturnType<typeof setTimeout> | undefined;
				let updateTimer: ReturnType<typeof setTimeout> | undefined;
				const spillPath = join(spillDir, `bash-${id.replace(/[^A-Za-z0-9_-]/g, "_")}.log`);
				const report = () => {
					updateTimer = undefined;
					const snap = tail.snapshot();
					onUpdate?.({
						content: [{ type: "text", text: snap.content }],
						details: { exitCode: null, truncated: snap.truncated },
					});
				};
				const onData = (data: Buffer) => {
					const text = data.toString("utf8");
					tail.append(text);
					full.push(text);
					if (onUpdate && !updateTimer) updateTimer = setTimeout(report, UPDATE_EVERY_MS);
				};
				child.stdout?.on("data", onData);
				child.stderr?.on("data", onData);
				const onAbort = () => {
					aborted = true;
					killGroup(child.pid);
				};
				signal?.addEventListener("abort", onAbort, { once: true });
				if (timeout && timeout > 0) {
					timer = setTimeout(() => {
						timedOut = true;
						killGroup(child.pid);
					}, timeout * 1000);
				}
				child.on("error", (error) => {
					cleanup();
					reject(new Error(`Could not run bash: ${error.message}`));
				});
				const cleanup = () => {
					if (timer) clearTimeout(timer);
					if (updateTimer) clearTimeout(updateTimer);
					signal?.removeEventListener("abort", onAbort);
				};
				child.on("close", (code) => {
					cleanup();
					// Children that outlived the shell still hold the group; end them with it.
					killGroup(child.pid);
					const snap = tail.snapshot();
					let text = snap.content;
					const details: BashDetails = { exitCode: code ?? null, truncated: snap.truncated };
					if (snap.truncated) {
						try {
							mkdirSync(spillDir, { recursive: true, mode: 0o700 });
							writeFileSync(spillPath, full.join(""), { mode: 0o600 });
							spilled = true;
						} catch {
							spilled = false;
						}
						if (spilled) details.fullOutputPath = spillPath;
						const start = snap.totalLines - snap.outputLines + 1;
						const limit = snap.by === "bytes" ? ` (${formatSize(MAX_BYTES)} limit)` : "";
						const where = spilled ? `Full output: ${spillPath}` : "Full output could not be saved";
						text += `\n\n[Showing lines ${start}-${snap.totalLines} of ${snap.totalLines}${limit}. ${where}]`;
					}
					const status = (s: string) => `${text ? `${text}\n\n` : ""}${s}`;
					if (aborted) return reject(new Error(status("Command aborted")));
					if (timedOut) return reject(new Error(status(`Command timed out after ${timeout} seconds`)));
					if (code === null) return reject(new Error(status("Command terminated without an exit code")));
					if (code !== 0) {
						return resolve({
							content: [{ type: "text", text: status(`Command exited with code ${code}`) }],
							details,
							isError: true,
						});
					}
					resolve({ content: [{ type: "text", text: text || "(no output)" }], details });
				});
			});
		},
	};
}
