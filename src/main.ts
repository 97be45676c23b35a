#!/usr/bin/env bun
/**
 * p2's entry. The guest worker's start (its thread, Hardened JavaScript's lockdown) is the longest step of a
 * start, so it begins here, before the rest of p2 is even loaded: this module loads only what decides whether
 * this run shows the UI. In the executable the rest (`cli.ts`) is a second embedded entry point, loaded from
 * the executable's own file system after the worker started; from source it is imported.
 */
import { EMBEDDED_ROOT } from "./host/embedded-root.ts";
import { onTerminal } from "./host/is-terminal.ts";
import { prewarmWorker } from "./host/worker-spawn.ts";

type Cli = typeof import("./cli.ts");

/** Whether this run will show the UI (and so needs a guest worker): not `serve`, help, version or no terminal. */
function runsTheUi(argv: readonly string[]): boolean {
	if (argv[0] === "serve" || !onTerminal()) return false;
	return !argv.some((a) => a === "--help" || a === "-h" || a === "--version" || a === "-v");
}

const argv = process.argv.slice(2);
// The worker reads nothing yet; a run that turns out not to need it ends it.
let prewarmedAt: number | undefined;
if (runsTheUi(argv)) {
	prewarmWorker();
	prewarmedAt = performance.now();
}
// No top-level await: the executable is compiled to bytecode, which needs a CommonJS entry. The module is named
// by a computed path so that the executable's bundler leaves it out of this entry point.
const cli: Promise<Cli> =
	EMBEDDED_ROOT !== undefined
		? Promise.resolve(require(`${EMBEDDED_ROOT}/src/cli.js`))
		: import(new URL("./cli.ts", import.meta.url).href);
void cli.then(({ runCli }) => runCli(argv, prewarmedAt));
