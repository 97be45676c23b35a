#!/usr/bin/env bun
/**
 * p2's entry. The guest worker's start (its thread, Hardened JavaScript's lockdown) is the longest step of a
 * start, so it begins here, before the rest of p2 is even loaded: this module loads only what decides whether
 * this run shows the UI. In the executable the rest (`cli.ts`) is a second embedded entry point, loaded from
 * the executable's own file system after the worker started; from source it is imported.
 */
import { devBootstrap } from "./dev-bootstrap.ts";
import { EMBEDDED_ROOT } from "./host/embedded-root.ts";
import { hardenIntrinsics } from "./host/harden-intrinsics.ts";
import { onTerminal } from "./host/is-terminal.ts";
import { prewarmWorker } from "./host/worker-spawn.ts";

type Cli = typeof import("./cli.ts");

/** Whether this run will show the UI (and so needs a guest worker): not `serve`, `update`, help, version or no terminal. */
function runsTheUi(argv: readonly string[]): boolean {
	if (argv[0] === "serve" || argv[0] === "update" || !onTerminal()) return false;
	return !argv.some((a) => a === "--help" || a === "-h" || a === "--version" || a === "-v");
}

/** Whether the command line names a server other than this device's (a URL, a link to join or to own). */
function namesAServer(argv: readonly string[]): boolean {
	return argv.some((a) => /^https?:\/\//i.test(a) || a.startsWith("--join") || a.startsWith("--owner-link"));
}

/**
 * From source, when this device's server already runs: the UI bundle it served last time goes to the worker
 * before the rest of p2 loads (~100 ms from source), so that it is evaluated as soon as the worker is locked
 * down. When no server runs, starting one comes first (cli.ts), and the bundle is handed over after. Not fatal.
 */
async function preloadKeptBundle(): Promise<void> {
	try {
		const [{ resolveDataDir }, { SERVER_INFO_FILE }]: [
			typeof import("./server/store/data-dir.ts"),
			typeof import("./protocol/server-info.ts"),
		] = await Promise.all([
			import(new URL("./server/store/data-dir.ts", import.meta.url).href),
			import(new URL("./protocol/server-info.ts", import.meta.url).href),
		]);
		const dataDir = resolveDataDir(process.env);
		const { existsSync } = require("node:fs") as typeof import("node:fs");
		const { join } = require("node:path") as typeof import("node:path");
		if (!existsSync(join(dataDir, SERVER_INFO_FILE))) return;
		const { preloadKeptDeviceBundle }: typeof import("./host/kept-device-bundle.ts") = await import(
			new URL("./host/kept-device-bundle.ts", import.meta.url).href
		);
		preloadKeptDeviceBundle(process.env, dataDir);
	} catch {
		// The launcher fetches the bundle from the server as always.
	}
}

const argv = process.argv.slice(2);
// The worker reads nothing yet; a run that turns out not to need it ends it.
let prewarmedAt: number | undefined;
const showsTheUi = runsTheUi(argv);
if (showsTheUi) {
	// From source, the built bootstrap is looked up first: its list of sources is this checkout's own build output.
	prewarmWorker(EMBEDDED_ROOT === undefined ? devBootstrap() : undefined);
	prewarmedAt = performance.now();
}
// Before any data from a server, a worker or a file is read (the kept UI bundle below, all of cli.ts).
hardenIntrinsics();
// No top-level await: the executable is compiled to bytecode, which needs a CommonJS entry. Modules are named
// by computed paths so that the executable's bundler leaves them out of this entry point.
const cli: Promise<Cli> =
	EMBEDDED_ROOT !== undefined
		? Promise.resolve(require(`${EMBEDDED_ROOT}/src/cli.js`))
		: (showsTheUi && !namesAServer(argv) ? preloadKeptBundle() : Promise.resolve()).then(
				() => import(new URL("./cli.ts", import.meta.url).href),
			);
void cli.then(({ runCli }) => runCli(argv, prewarmedAt));
