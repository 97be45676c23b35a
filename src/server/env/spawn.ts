/**
 * `child_process.spawn`, loaded at the first command: Node's child_process and the streams it brings were a
 * third of what the server loaded at its start (~15 ms from source), and a server that runs no command yet
 * does not need them.
 */
import type * as ChildProcess from "node:child_process";

let loaded: typeof ChildProcess.spawn | undefined;

export const spawn = ((...args: Parameters<typeof ChildProcess.spawn>) => {
	loaded ??= (require("node:child_process") as typeof ChildProcess).spawn;
	return loaded(...args);
}) as typeof ChildProcess.spawn;
