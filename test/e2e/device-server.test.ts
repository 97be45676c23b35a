/**
 * This device's server runs in its own process: it outlives the launcher (runs go on, the next start finds
 * it), ends by itself when idle, and makes way for a launcher of another build.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readServerInfo, SERVER_INFO_FILE } from "../../src/protocol/server-info.ts";
import { stopDeviceServer } from "../support/device-server.ts";
import { type FakeHome, fakeHome, MAIN } from "../support/fake-home.ts";
import { processEnded } from "../support/processes.ts";
import { runInPty } from "../support/pty.ts";
import { waitUntil } from "../support/wait.ts";

let h: FakeHome;
beforeAll(async () => {
	h = await fakeHome("p2-device-server-");
});
afterAll(() => h.remove());

function serverInfo() {
	const info = readServerInfo(JSON.parse(readFileSync(join(h.data, SERVER_INFO_FILE), "utf8")));
	if (!info) throw new Error("no server.json");
	return info;
}

const alive = (pid: number) => !processEnded(pid);

/** p2 in a pseudo-terminal until its screen shows the model, then Ctrl+D. */
async function openAndQuit(env: Record<string, string> = h.env): Promise<void> {
	const run = runInPty([process.execPath, MAIN], { env, cwd: h.home, cols: 100, rows: 24 });
	await run.waitFor((s) => s.includes("fake-model"), "the screen");
	run.type("\x04");
	expect(await run.exited).toBe(0);
}

describe("this device's server process", () => {
	test("outlives the launcher, and the next start uses the same one", async () => {
		await openAndQuit();
		const first = serverInfo();
		expect(first.auto).toBe(true);
		expect(alive(first.pid)).toBe(true);
		await openAndQuit();
		expect(serverInfo().pid).toBe(first.pid);
		// Started with the engine's top compiler tier off (its compiles cost a streaming server more than they save).
		const environ = readFileSync(`/proc/${first.pid}/environ`, "utf8").split("\0");
		expect(environ).toContain("BUN_JSC_useFTLJIT=0");
	}, 60_000);

	test("a server another build started makes way for this launcher's", async () => {
		const old = serverInfo();
		writeFileSync(join(h.data, SERVER_INFO_FILE), JSON.stringify({ ...old, build: "src:an-older-build" }), {
			mode: 0o600,
		});
		await openAndQuit();
		// The old server answered that it is stopping; it ends (and its parent, init, reaps it) on its own time.
		await waitUntil(() => !alive(old.pid), "the old build's server gone");
		const next = serverInfo();
		expect(next.pid).not.toBe(old.pid);
		expect(next.build).not.toBe("src:an-older-build");
	}, 60_000);

	test("ends by itself once nobody has been connected for its idle time", async () => {
		const { pid } = serverInfo();
		process.kill(pid, "SIGTERM");
		await waitUntil(() => !alive(pid), "the old server gone");
		await openAndQuit({ ...h.env, P2_SERVER_IDLE_MS: "300" });
		const idle = serverInfo().pid;
		await waitUntil(() => !alive(idle), "the idle server's end", 20_000);
	}, 60_000);

	test("the person's own engine setting reaches the server as they set it", async () => {
		await openAndQuit({ ...h.env, BUN_JSC_useFTLJIT: "1" });
		const { pid } = serverInfo();
		expect(readFileSync(`/proc/${pid}/environ`, "utf8").split("\0")).toContain("BUN_JSC_useFTLJIT=1");
		await stopDeviceServer(h.data);
	}, 60_000);
});
