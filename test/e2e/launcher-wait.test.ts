import { afterEach, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { SERVER_INFO_FILE } from "../../src/protocol/server-info.ts";
import { fakeHome, MAIN } from "../support/fake-home.ts";
import { runInPty } from "../support/pty.ts";
import { startServe } from "../support/serve-process.ts";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
	for (const f of cleanups.splice(0).reverse()) await f();
});

test("p2 waits for a stopped server that holds the data, says so, and connects to it when it wakes", async () => {
	const home = await fakeHome("p2-wait-");
	cleanups.push(() => home.remove());
	const server = await startServe(home.data, (proc) => cleanups.push(() => proc.kill(9)));
	server.proc.kill("SIGSTOP");

	const run = runInPty([process.execPath, MAIN], { env: home.env, cols: 220 });
	cleanups.push(() => run.kill());
	await run.waitFor((s) => s.includes("does not answer; waiting for it"), "the launcher saying it waits");
	expect(run.screen().join("\n")).toContain(`pid ${server.proc.pid}, ${server.info.origin}`);
	// No second server was started on the same data: the stopped one is still the one advertised.
	expect(JSON.parse(readFileSync(join(home.data, SERVER_INFO_FILE), "utf8")).pid).toBe(server.proc.pid);

	server.proc.kill("SIGCONT");
	const port = String(server.info.port);
	await run.waitFor((s) => s.includes("this device") && s.includes(port), "the UI on the woken server", 30_000);
	run.type("\x04");
	expect(await run.exited).toBe(0);
}, 60_000);
