/**
 * This device's server as the launcher starts it: `p2 serve --device` in its own process group, so it outlives
 * the terminal (runs go on; the next start finds it running), logging to `server.log` in its data directory.
 */
import { spawn } from "node:child_process";
import {
	closeSync,
	existsSync,
	type FSWatcher,
	mkdirSync,
	openSync,
	readFileSync,
	statSync,
	truncateSync,
	watch,
} from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { SERVER_ENGINE_ENV } from "../protocol/server-engine.ts";
import { DEVICE_TOKEN_HEADER, EXIT_PATH, SERVER_INFO_FILE, type ServerInfo } from "../protocol/server-info.ts";
import type { Clock } from "./clock.ts";
import { findLocalServer } from "./local-server.ts";
import { mark } from "./timeline.ts";
import { trustedFetch } from "./trusted-http.ts";
import { terminalLine } from "./visible-text.ts";

const LOG_FILE = "server.log";
const MAX_LOG_BYTES = 1024 * 1024;
const READY_POLL_MS = 25;
const READY_TIMEOUT_MS = 30_000;
/** `p2 serve --device` exits with this when another server holds the data directory. */
export const BUSY_EXIT_CODE = 3;

export class DeviceServerBusy extends Error {
	override name = "DeviceServerBusy";
}

/** The command that runs `p2 serve --device`: the executable itself, or Bun on `src/main.ts` in development. */
export function serveCommand(): string[] {
	const compiled = Bun.main.startsWith("/$bunfs/") || /^B:[\\/]~BUN[\\/]/.test(Bun.main);
	return compiled ? [process.execPath, "serve", "--device"] : [process.execPath, Bun.main, "serve", "--device"];
}

/** The log's last lines, controls made visible: what to say when the server did not start. */
function lastLines(path: string): string {
	try {
		const text = readFileSync(path, "utf8");
		return terminalLine(text.trim().split("\n").slice(-3).join(" / "), 500);
	} catch {
		return "";
	}
}

/** A server started before the launcher needed it (see `prestartDeviceServer`), by data directory. */
const starting = new Map<string, Promise<ServerInfo>>();

/**
 * Starts this device's server at once when none has advertised itself, so its start runs beside the
 * launcher's own (its imports, the UI worker); `startDeviceServer` then takes this one over.
 */
export function prestartDeviceServer(dataDir: string, env: Record<string, string | undefined>, clock: Clock): void {
	if (starting.has(dataDir) || existsSync(join(dataDir, SERVER_INFO_FILE))) return;
	const pending = launchDeviceServer(dataDir, env, clock);
	// Whoever takes it over hears how it went; until then a failure is only kept.
	pending.catch(() => {});
	starting.set(dataDir, pending);
}

/** Whether this launcher has a start of `dataDir`'s server under way (then the lock's holder is that server). */
export function startingFor(dataDir: string): boolean {
	return starting.has(dataDir);
}

/**
 * Starts this device's server for `dataDir` and resolves with it once it answers. Rejects with
 * DeviceServerBusy when another server holds the directory, or with what its log says when it could not start.
 */
export function startDeviceServer(
	dataDir: string,
	env: Record<string, string | undefined>,
	clock: Clock,
	command = serveCommand(),
): Promise<ServerInfo> {
	const pending = starting.get(dataDir);
	starting.delete(dataDir);
	return pending ?? launchDeviceServer(dataDir, env, clock, command);
}

async function launchDeviceServer(
	dataDir: string,
	env: Record<string, string | undefined>,
	clock: Clock,
	command = serveCommand(),
): Promise<ServerInfo> {
	mkdirSync(dataDir, { recursive: true, mode: 0o700 });
	const log = join(dataDir, LOG_FILE);
	try {
		if (statSync(log).size > MAX_LOG_BYTES) truncateSync(log, 0);
	} catch {
		// No log yet.
	}
	const fd = openSync(log, "a", 0o600);
	let exited: number | null | undefined;
	try {
		const child = spawn(command[0]!, command.slice(1), {
			detached: true,
			stdio: ["ignore", fd, fd],
			// Started with the server's engine options (see there), so it need not start itself again.
			env: { ...SERVER_ENGINE_ENV, ...env, P2_DATA_DIR: dataDir },
			cwd: homedir(),
		});
		child.on("exit", (code) => {
			exited = code;
		});
		child.on("error", () => {
			exited ??= 1;
		});
		child.unref();
		mark("server spawned");
		const started = clock.now();
		// Woken when server.json appears (not only by the poll below): the server is looked at as soon as it says so.
		let wake: (() => void) | undefined;
		let watcher: FSWatcher | undefined;
		try {
			watcher = watch(dataDir, (_event, name) => {
				if (name !== SERVER_INFO_FILE) return;
				mark("server advertised");
				wake?.();
			});
		} catch {
			// Not watchable here: the poll alone finds it.
		}
		try {
			for (;;) {
				const info = await findLocalServer(dataDir);
				if (info) return info;
				if (exited !== undefined) {
					if (exited === BUSY_EXIT_CODE) throw new DeviceServerBusy(lastLines(log));
					throw new Error(`this device's server did not start: ${lastLines(log) || `exit ${exited}`} (see ${log})`);
				}
				if (clock.now() - started > READY_TIMEOUT_MS) {
					throw new Error(`this device's server did not answer in ${READY_TIMEOUT_MS / 1000} s (see ${log})`);
				}
				await new Promise<void>((resolve) => {
					const timer = setTimeout(resolve, READY_POLL_MS);
					wake = () => {
						clearTimeout(timer);
						resolve();
					};
				});
			}
		} finally {
			watcher?.close();
		}
	} finally {
		closeSync(fd);
	}
}

/** Asks a server a launcher started to make way for this build: true when it is stopping, false while runs are live. */
export async function askToMakeWay(info: ServerInfo): Promise<boolean> {
	try {
		const res = await trustedFetch({
			origin: info.origin,
			path: EXIT_PATH,
			method: "POST",
			headers: { [DEVICE_TOKEN_HEADER]: info.deviceToken },
			timeoutMs: 5000,
		});
		return res.status === 202;
	} catch {
		return false;
	}
}
