import { readFileSync } from "node:fs";
import { join } from "node:path";
import { readServerInfo, SERVER_INFO_FILE, type ServerInfo } from "../../src/protocol/server-info.ts";
import type { P2Server } from "../../src/server/server.ts";

const MAIN = join(import.meta.dir, "..", "..", "src", "main.ts");

export interface ServeProcess {
	readonly proc: ReturnType<typeof spawnServe>;
	/** What it printed up to its owner link. */
	readonly out: string;
	readonly info: ServerInfo;
	readonly link: string;
}

/** Spawns `p2 serve` on a data directory; `kill` is called for it when `cleanups` run. */
function spawnServe(dataDir: string, args: string[], env: Record<string, string> = {}) {
	return Bun.spawn([process.execPath, MAIN, "serve", "--port", "0", ...args], {
		env: { ...process.env, ...env, P2_DATA_DIR: dataDir },
		stdout: "pipe",
		stderr: "pipe",
	});
}

/** Starts `p2 serve` and resolves once it printed its owner link. `onSpawn` gets the process at once. */
export async function startServe(
	dataDir: string,
	onSpawn: (proc: { kill(signal?: number | NodeJS.Signals): void }) => void,
	args: string[] = [],
	env: Record<string, string> = {},
): Promise<ServeProcess> {
	const proc = spawnServe(dataDir, args, env);
	onSpawn(proc);
	const reader = proc.stdout.getReader();
	let out = "";
	while (!out.includes("Owner link")) {
		const { value, done } = await reader.read();
		if (done) throw new Error(`p2 serve exited: ${out}${await new Response(proc.stderr).text()}`);
		out += new TextDecoder().decode(value);
	}
	reader.releaseLock();
	const info = serverInfoOf(JSON.parse(readFileSync(join(dataDir, SERVER_INFO_FILE), "utf8")));
	const link = /Owner link[^:]*: (\S+)/.exec(out)?.[1] ?? "";
	return { proc, out, info, link };
}

/**
 * Runs `p2 serve` expecting it to refuse to start: its exit code and what it said. One that starts anyway is
 * killed, and its code is "started".
 */
export async function serveRefused(dataDir: string): Promise<{ code: number | "started"; stderr: string }> {
	const proc = spawnServe(dataDir, []);
	let out = "";
	for await (const chunk of proc.stdout) {
		out += new TextDecoder().decode(chunk);
		if (out.includes("Owner link")) {
			proc.kill(9);
			await proc.exited;
			return { code: "started", stderr: await new Response(proc.stderr).text() };
		}
	}
	return { code: await proc.exited, stderr: await new Response(proc.stderr).text() };
}

/** Enough of a P2Server for `connectClient`. */
export function asServer(info: ServerInfo): P2Server {
	return { origin: info.origin } as P2Server;
}

/** server.json as the server wrote it; a test fails at once if it is not one. */
function serverInfoOf(raw: unknown): ServerInfo {
	const info = readServerInfo(raw);
	if (!info) throw new Error("server.json is not a server's info");
	return info;
}
