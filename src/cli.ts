/**
 * The command line, once `main.ts` has started the guest worker: `p2 serve`, help and version, or the launcher.
 */
import pkg from "../package.json" with { type: "json" };
import { hardenIntrinsics } from "./host/harden-intrinsics.ts";
import { onTerminal } from "./host/is-terminal.ts";
import { terminalLine } from "./host/visible-text.ts";
import { discardSpareWorker, preloadEmbeddedBundle, preloadedBundle, prewarmWorker } from "./host/worker-spawn.ts";
import { errorText } from "./protocol/errors.ts";
import { versionLine } from "./version.ts";

const HELP = `p2 ${pkg.version} — a terminal client for a server-backed, multi-user coding agent`;

/** `prewarmedAt`: when `main.ts` started the guest worker, if this run shows the UI. */
async function main(argv: string[], prewarmedAt: number | undefined): Promise<number> {
	try {
		return await run(argv, prewarmedAt);
	} finally {
		discardSpareWorker();
	}
}

async function run(argv: string[], prewarmedAt: number | undefined): Promise<number> {
	// main.ts has done so; in the executable this is a second copy of the module, and the call finds it done.
	hardenIntrinsics();
	if (argv[0] === "serve") {
		const { serveCommand } = await import("./server/serve-cli.ts");
		return serveCommand(argv.slice(1));
	}
	if (argv[0] === "update") {
		const { updateCommand } = await import("./update-cli.ts");
		return updateCommand(argv.slice(1));
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
		console.log(versionLine());
		return 0;
	}
	if (args.help) {
		console.log(`${HELP}\n\n${LAUNCH_HELP}`);
		return 0;
	}
	if (!onTerminal()) {
		console.error("p2: needs a terminal (stdin and stdout must be a TTY); use `p2 serve` to run a server alone.");
		return 2;
	}
	if (prewarmedAt === undefined) prewarmWorker();
	if (!args.url) preloadEmbeddedBundle();
	if (!args.url && !args.join) {
		// This device's server, if none runs yet, starts now: beside the launcher's own start, not after it.
		const [{ prestartDeviceServer }, { resolveDataDir }, { realClock }] = await Promise.all([
			import("./host/device-server.ts"),
			import("./server/store/data-dir.ts"),
			import("./host/clock.ts"),
		]);
		const dataDir = resolveDataDir(process.env);
		prestartDeviceServer(dataDir, process.env, realClock);
		// From source there is no embedded bundle: main.ts usually handed the kept one to the worker already.
		if (!preloadedBundle())
			(await import("./host/kept-device-bundle.ts")).preloadKeptDeviceBundle(process.env, dataDir);
	}
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

/** Runs the command line; the process's exit code is set, or it exits, when it is done. */
export function runCli(argv: string[], prewarmedAt: number | undefined): void {
	void main(argv, prewarmedAt).then(
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
}
