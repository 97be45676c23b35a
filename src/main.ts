#!/usr/bin/env bun
import pkg from "../package.json" with { type: "json" };
import { hardenIntrinsics } from "./host/harden-intrinsics.ts";
import { terminalLine } from "./host/visible-text.ts";

const HELP = `p2 ${pkg.version} — a terminal client for a server-backed, multi-user coding agent`;

async function main(argv: string[]): Promise<number> {
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
	const spawn = await import("./host/worker-spawn.ts");
	spawn.prewarmWorker();
	if (!args.url) spawn.preloadEmbeddedBundle();
	const { launch } = await import("./launch.ts");
	let code: number;
	try {
		code = await launch(args);
	} finally {
		spawn.discardSpareWorker();
	}
	// Whatever else is still running (the embedded server's sockets, a timer) ends with the launcher.
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
		process.stderr.write(`p2: ${terminalLine(error instanceof Error ? error.message : String(error))}\n`);
		process.exit(1);
	},
);
