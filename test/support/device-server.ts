import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { readServerInfo, SERVER_INFO_FILE } from "../../src/protocol/server-info.ts";
import { processEnded } from "./processes.ts";
import { waitUntil } from "./wait.ts";

/** Whether `pid` is a p2 device server (a stale file must never make a test kill another process). */
function isDeviceServer(pid: number): boolean {
	try {
		const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
		return cmdline.includes("serve\0--device");
	} catch {
		const ps = Bun.spawnSync(["ps", "-o", "args=", "-p", String(pid)]);
		return ps.stdout.toString().includes("serve --device");
	}
}

const alive = (pid: number) => !processEnded(pid);

/**
 * Ends the server a launcher started for `dataDir` (it outlives the launcher by design), and waits until it
 * is gone, so a test leaves no process behind and its directory can be removed.
 */
export async function stopDeviceServer(dataDir: string): Promise<void> {
	// server.json names a server that listens; the lock's holder file names one still starting, too.
	const pidFrom = (file: string, read: (raw: unknown) => number | undefined) => {
		try {
			return read(JSON.parse(readFileSync(join(dataDir, file), "utf8")));
		} catch {
			return undefined;
		}
	};
	const pid =
		pidFrom(SERVER_INFO_FILE, (raw) => readServerInfo(raw)?.pid) ??
		pidFrom("server.holder.json", (raw) => {
			const value = (raw as { pid?: unknown } | null)?.pid;
			return typeof value === "number" ? value : undefined;
		});
	if (pid === undefined || pid === process.pid || !alive(pid) || !isDeviceServer(pid)) return;
	process.kill(pid, "SIGTERM");
	try {
		await waitUntil(() => !alive(pid), "the device server to end", 10_000);
	} catch {
		process.kill(pid, "SIGKILL");
	}
}

/** Ends every device server whose data directory lies under `dir` (a test's home), then removes `dir`. */
export async function removeHome(dir: string): Promise<void> {
	const glob = new Bun.Glob("**/server.{json,holder.json}");
	try {
		const dirs = new Set<string>();
		for (const path of glob.scanSync({ cwd: dir, dot: true, onlyFiles: true })) {
			if (path.split("/").length <= 4) dirs.add(join(dir, path, ".."));
		}
		for (const dataDir of dirs) await stopDeviceServer(dataDir);
	} catch {
		// Nothing there (already removed).
	}
	rmSync(dir, { recursive: true, force: true });
}
