import { parseArgs } from "node:util";
import { errorText } from "../protocol/errors.ts";
import { hasServerEngine, SERVER_ENGINE_ENV } from "../protocol/server-engine.ts";
import { buildId } from "./build-id.ts";
import { defaultGuestBundle, isDevelopmentBuild } from "./bundle.ts";
import { useServerValidators } from "./checks.ts";
import { type IdleWatch, watchIdle } from "./idle-watch.ts";
import { defaultPlugins } from "./plugins.ts";
import { ServerConfigError, startServer } from "./server.ts";
import { loadServerValidators } from "./server-validators.ts";
import { resolveDataDir } from "./store/data-dir.ts";
import { DataDirBusyError } from "./store/data-dir-lock.ts";

const USAGE = `Usage: p2 serve [--host H] [--port N] [--tls-cert FILE --tls-key FILE] [--behind-proxy] [--public-origin URL]

Runs a p2 server on its own and prints a one-time owner link.
  --host H           address to listen on (default 127.0.0.1); a non-loopback address needs TLS or --behind-proxy
  --port N           port (default 4300; 0 picks a free one)
  --tls-cert FILE    TLS certificate (PEM)
  --tls-key FILE     TLS private key (PEM)
  --behind-proxy     plain HTTP on a non-loopback address because a TLS proxy is in front
  --public-origin U  the origin clients use, e.g. https://p2.example.com; needed behind a proxy and
                     on 0.0.0.0 or ::, since same-origin checks never trust a request's Host header
Data lives in ~/.pi/p2 (P2_DATA_DIR overrides).`;

export class UsageError extends Error {
	override name = "UsageError";
}

export function parseServeArgs(argv: string[]) {
	let values: ReturnType<typeof parse>["values"];
	function parse() {
		return parseArgs({
			args: argv,
			strict: true,
			allowPositionals: false,
			options: {
				host: { type: "string" },
				port: { type: "string" },
				"tls-cert": { type: "string" },
				"tls-key": { type: "string" },
				"behind-proxy": { type: "boolean" },
				"public-origin": { type: "string" },
				device: { type: "boolean" },
				help: { type: "boolean", short: "h" },
			},
		});
	}
	try {
		values = parse().values;
	} catch (error) {
		throw new UsageError(`p2 serve: ${errorText(error)}\n\n${USAGE}`);
	}
	const port = values.port === undefined ? 4300 : Number(values.port);
	if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`p2 serve: --port must be 0–65535`);
	if ((values["tls-cert"] === undefined) !== (values["tls-key"] === undefined)) {
		throw new UsageError("p2 serve: --tls-cert and --tls-key go together");
	}
	if (values["public-origin"] !== undefined) {
		let url: URL;
		try {
			url = new URL(values["public-origin"]);
		} catch {
			throw new UsageError("p2 serve: --public-origin must be a URL such as https://p2.example.com");
		}
		if (url.origin !== values["public-origin"].replace(/\/$/, "")) {
			throw new UsageError("p2 serve: --public-origin is an origin only (scheme, host, port)");
		}
	}
	if (
		values.device &&
		(values.host !== undefined || values.port !== undefined || values["public-origin"] !== undefined)
	) {
		throw new UsageError("p2 serve: --device picks its own address (a free port on 127.0.0.1)");
	}
	return {
		help: values.help === true,
		device: values.device === true,
		hostname: values.host ?? "127.0.0.1",
		port,
		tls: values["tls-cert"] && values["tls-key"] ? { cert: values["tls-cert"], key: values["tls-key"] } : undefined,
		behindProxy: values["behind-proxy"] === true,
		publicOrigin: values["public-origin"]?.replace(/\/$/, ""),
	};
}

/** How long a server a launcher started stays up with nobody connected and nothing running. */
const DEVICE_IDLE_MS = 15 * 60_000;

/**
 * `p2 serve --device`: this device's server as a launcher starts it, in its own process so it outlives the
 * terminal (runs go on, the next start is quick). A free loopback port, found through server.json; no owner
 * link (this device's launchers hold the device token); it ends when idle, and makes way for another build.
 */
async function deviceServer(): Promise<number> {
	const idleMs = Number(process.env.P2_SERVER_IDLE_MS ?? DEVICE_IDLE_MS);
	let watch: IdleWatch | undefined;
	let stopping = false;
	try {
		const server = await startServer({
			dataDir: resolveDataDir(process.env),
			hostname: "127.0.0.1",
			port: 0,
			plugins: defaultPlugins(),
			bundle: defaultGuestBundle(),
			devReload: isDevelopmentBuild(),
			advertise: true,
			build: buildId(),
			onExitRequest: () => {
				if (watch?.busy()) return "busy";
				setTimeout(stop, 0);
				return "stopping";
			},
		});
		const stop = async () => {
			if (stopping) return;
			stopping = true;
			watch?.stop();
			await server.stop();
			process.exit(0);
		};
		watch = watchIdle(server.ctx, Number.isFinite(idleMs) && idleMs > 0 ? idleMs : DEVICE_IDLE_MS, stop);
		console.log(`p2 server for this device listening on ${server.origin}`);
		process.on("SIGINT", stop);
		process.on("SIGTERM", stop);
		return await new Promise<number>(() => {});
	} catch (error) {
		console.error(`p2 serve: ${errorText(error)}`);
		return error instanceof DataDirBusyError ? 3 : 1;
	}
}

/**
 * A server started by hand runs with the same engine options as this device's (`SERVER_ENGINE_ENV`): the
 * process starts itself again with them, once, before it does anything else. Where a process cannot replace
 * itself (Windows), or the options are already set, it runs as it is.
 */
function restartWithServerEngine(): void {
	if (hasServerEngine(process.env) || process.platform === "win32" || typeof process.execve !== "function") return;
	const compiled = Bun.main.startsWith("/$bunfs/") || /^B:[\\/]~BUN[\\/]/.test(Bun.main);
	// The executable takes its own arguments; Bun takes its flags and the script first.
	const args = compiled
		? [process.execPath, ...process.argv.slice(2)]
		: [process.execPath, ...process.execArgv, ...process.argv.slice(1)];
	try {
		process.execve(process.execPath, args, { ...SERVER_ENGINE_ENV, ...process.env });
	} catch (error) {
		console.error(`p2 serve: running without the server's engine options (${errorText(error)})`);
	}
}

export async function serveCommand(argv: string[]): Promise<number> {
	let args: ReturnType<typeof parseServeArgs>;
	try {
		args = parseServeArgs(argv);
	} catch (error) {
		console.error(errorText(error));
		return 2;
	}
	if (args.help) {
		console.log(USAGE);
		return 0;
	}
	restartWithServerEngine();
	useServerValidators(await loadServerValidators());
	if (args.device) return deviceServer();
	try {
		const server = await startServer({
			dataDir: resolveDataDir(process.env),
			hostname: args.hostname,
			port: args.port,
			tls: args.tls,
			behindProxy: args.behindProxy,
			publicOrigin: args.publicOrigin,
			plugins: defaultPlugins(),
			// The UI every launcher that connects runs: a server on its own serves it too.
			bundle: defaultGuestBundle(),
			devReload: isDevelopmentBuild(),
			advertise: true,
		});
		console.log(`p2 server listening on ${server.origin}`);
		console.log(`Owner link (one use, valid for 24 hours): ${server.mintOwnerLink()}`);
		const stop = async () => {
			await server.stop();
			process.exit(0);
		};
		process.on("SIGINT", stop);
		process.on("SIGTERM", stop);
		return await new Promise<number>(() => {});
	} catch (error) {
		if (error instanceof DataDirBusyError) {
			// One server per data directory: a second one would take the first one's live runs for crashed ones.
			console.error(`p2 serve: ${error.message}; stop it first, or give this one another P2_DATA_DIR`);
			return 1;
		}
		if (error instanceof ServerConfigError) {
			console.error(`p2 serve: ${error.message}`);
			return 2;
		}
		console.error(`p2 serve: ${errorText(error)}`);
		return 1;
	}
}
