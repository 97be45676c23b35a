/**
 * The terminal panel's cost (issue 39): the UI bundle's size and the worker's start to its first frame with the
 * emulator carried in it as text, and, inside the real sandbox, the panel's first opening (the emulator
 * evaluated), reading 2000 lines of a shell's output, and drawing the panel. Prints JSON.
 * Run: bun bench/terminal.ts [runs]
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { Sandbox } from "../src/host/sandbox.ts";
import { buildGuestBundle } from "../src/server/bundle.ts";
import type { GuestBundle } from "../src/server/server.ts";
import { BENCH_START } from "../test/support/start-data.ts";
import { sandboxedResult } from "./guest/sandboxed-result.ts";

const RUNS = Number(process.argv[2] ?? 5);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const round = (n: number) => Math.round(n * 100) / 100;

/** From the worker's start to the UI's `ready` (its first frame is drawn by then). */
function readyMs(bundle: GuestBundle): Promise<number> {
	const started = performance.now();
	return new Promise((resolve, reject) => {
		const sandbox = new Sandbox({
			bundle,
			start: BENCH_START,
			onMessage(message) {
				if (message.kind !== "ready") return;
				sandbox.terminate();
				resolve(performance.now() - started);
			},
			onProblem() {},
			onEnd(reason, detail) {
				if (reason !== "terminated") reject(new Error(`${reason}: ${detail}`));
			},
		});
	});
}

const ui = await buildGuestBundle();
const ready: number[] = [];
for (let i = 0; i < RUNS; i++) ready.push(await readyMs(ui));

const result: Record<string, unknown> = {
	runs: RUNS,
	uiBundleBytes: ui.source.length,
	workerReadyMs: round(median(ready)),
};
// The panel's own costs, where the panel exists (the same script measures a checkout from before it).
const entry = join(import.meta.dir, "guest", "terminal-entry.ts");
if (existsSync(join(import.meta.dir, "..", "src", "plugins", "terminal"))) {
	const bundle = await buildGuestBundle({ entry });
	const panel: Record<string, number>[] = [];
	for (let i = 0; i < RUNS; i++) panel.push(await sandboxedResult<Record<string, number>>(bundle));
	for (const key of ["firstOpenEvaluateMs", "parse2000LinesMs", "drawPanel100x30Ms"]) {
		result[key] = round(median(panel.map((r) => r[key] ?? Number.NaN)));
	}
}
console.log(JSON.stringify(result, null, "\t"));
