/**
 * The start-up timeline, for benchmarks only: with `P2_TIMELINE=<file>` set, the launcher notes when each
 * step of its start ended (milliseconds since the process began) and appends them to the file as one JSON
 * line when it exits. Without it, marks cost a comparison.
 */
import { appendFileSync } from "node:fs";

const file = process.env.P2_TIMELINE;
const marks: Record<string, number> = {};

/** Notes the first time `name` happened. */
export function mark(name: string, at = performance.now()): void {
	if (file && !Object.hasOwn(marks, name)) marks[name] = Math.round(at);
}

/** A duration measured elsewhere (the worker's lockdown and evaluation). */
export function note(name: string, ms: number): void {
	if (file && !Object.hasOwn(marks, name)) marks[name] = Math.round(ms);
}

if (file) {
	process.on("exit", () => {
		try {
			appendFileSync(file, `${JSON.stringify(marks)}\n`);
		} catch {
			// A benchmark's file; nothing to do when it cannot be written.
		}
	});
}
