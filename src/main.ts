#!/usr/bin/env bun
import pkg from "../package.json" with { type: "json" };
import { hardenIntrinsics } from "./host/harden-intrinsics.ts";
import { terminalLine } from "./host/visible-text.ts";
import { discardSpareWorker, preloadEmbeddedBundle, prewarmWorker } from "./host/worker-spawn.ts";
import { errorText } from "./protocol/errors.ts";

const HELP = `p2 ${pkg.version} — a terminal client for a server-backed, multi-user coding agent`;

/** Whether this run will show the UI (and so needs a guest worker): not `serve`, help, version or no terminal. */
function runsTheUi(argv: readonly string[]): boolean {
	if (argv[0] === "serve" || !process.stdin.isTTY || !process.stdout.isTTY) return false;
	return !argv.some((a) => a === "--help" || a === "-h" || a === "--version" || a === "-v");
}

async function main(argv: string[]): Promise<number> {
	// The guest worker's start (its thread, Hardened JavaScript's lockdown) is the longest step of a start:
	// it begins before anything else. It reads nothing; a run that turns out not to need it ends it below.
	let prewarmedAt: number | undefined;
	if (runsTheUi(argv)) {
		prewarmWorker();
		prewarmedAt = performance.now();
	}
	try {
		return await run(argv, prewarmedAt);
	} finally {
		discardSpareWorker();
	}
}

async function run(argv: string[], prewarmedAt: number | undefined): Promise<number> {
	// Before any data from a server, a worker or a file is read (the embedded server runs in this process too).
	hardenIntrinsics();
	if (argv[0] === "serve") {
		const { serveCommand } = await import("./server/serve-cli.ts");
		return serveCommand(argv.slice(1));
	}
	const { guardLauncherProcess } = await import("./host/launcher-log.ts");
	guardLauncherProcess();
	const { ArgsError, LAUNCH_HELP, parseLaunchArgs } = await import("./host/args.ts");
	let args: ReturnType<typeof parseLaunchArgs>;
	try {
		args = parseLaunchArgs(argv);
	} catch (error) {
		if (!(error instanceof ArgsError)) throw error;
		console.error(`p2: ${error.message}`);
		return 2;
	}
	if (args.version) {
		console.log(pkg.version);
		return 0;
	}
	if (args.help) {
		console.log(`${HELP}\n\n${LAUNCH_HELP}`);
		return 0;
	}
	if (!process.stdin.isTTY || !process.stdout.isTTY) {
		console.error("p2: needs a terminal (stdin and stdout must be a TTY); use `p2 serve` to run a server alone.");
		return 2;
	}
	if (prewarmedAt === undefined) prewarmWorker();
	if (!args.url && !args.join) {
		// This device's server, if none runs yet, starts now: beside the launcher's own start, not after it.
		const [{ prestartDeviceServer }, { resolveDataDir }, { realClock }] = await Promise.all([
			import("./host/device-server.ts"),
			import("./server/store/data-dir.ts"),
			import("./host/clock.ts"),
		]);
		prestartDeviceServer(resolveDataDir(process.env), process.env, realClock);
	}
	if (!args.url) preloadEmbeddedBundle();
	const preloadedAt = performance.now();
	const { launch } = await import("./launch.ts");
	const { mark } = await import("./host/timeline.ts");
	if (prewarmedAt !== undefined) mark("worker spawned", prewarmedAt);
	mark("bundle preloaded", preloadedAt);
	mark("imports");
	const code = await launch(args);
	// Whatever else is still running (the embedded server's sockets, a timer) ends with the launcher.
	discardSpareWorker();
	process.exit(code);
}

// No top-level await: the executable is compiled to bytecode, which needs a CommonJS entry.
void main(process.argv.slice(2)).then(
	(code) => {
		process.exitCode = code;
	},
	// A refused bundle, an unreachable server, a broken data directory: one clear line (whatever the server
	// put in it made visible), not a stack trace, and p2 exits though a worker or a server is still up.
	(error: unknown) => {
		process.stderr.write(`p2: ${terminalLine(errorText(error))}\n`);
		process.exit(1);
	},
);
