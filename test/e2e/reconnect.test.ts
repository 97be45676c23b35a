import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { lockDataDir } from "../../src/server/store/data-dir-lock.ts";
import { type FakeHome, fakeHome, MAIN } from "../support/fake-home.ts";
import type { FakeOpenAI } from "../support/fake-openai.ts";
import { runInPty } from "../support/pty.ts";
import { waitUntil } from "../support/wait.ts";

let h: FakeHome;
let env: Record<string, string>;
let data: string;
let fake: FakeOpenAI;

beforeAll(async () => {
	h = await fakeHome("p2-reconnect-");
	({ env, data, fake } = h);
});
afterAll(() => h.remove());

async function serve() {
	const server = Bun.spawn([process.execPath, MAIN, "serve", "--port", "0"], {
		env,
		stdout: "ignore",
		stderr: "ignore",
	});
	await waitUntil(
		() => servedBy(join(data, "server.json")) === server.pid,
		"server.json naming the new server",
		30_000,
	);
	return server;
}

/** The pid server.json names, once it is there and whole. */
function servedBy(path: string): number | undefined {
	try {
		return JSON.parse(readFileSync(path, "utf8")).pid;
	} catch {
		return undefined;
	}
}

test("a message sent while this device's server is away waits, then goes once when it is back", async () => {
	let server = await serve();
	const run = runInPty([process.execPath, MAIN], { env, cwd: h.home, cols: 100, rows: 24 });
	await run.waitFor((s) => s.includes("fake-model"), "the screen");
	fake.enqueue({ text: "first answer" });
	run.type("before\r");
	await run.waitFor((s) => s.includes("first answer"), "an answer while connected");

	// The launcher starts a server of its own when it finds none. To keep this device's server away for as long
	// as the test needs, the launcher is stopped while the server goes and this test takes the data directory,
	// and again while the directory passes to the server that comes back.
	process.kill(run.pid, "SIGSTOP");
	server.kill("SIGTERM");
	await server.exited;
	const away = lockDataDir(data);
	process.kill(run.pid, "SIGCONT");
	await run.waitFor((s) => s.includes("Reconnecting to the server"), "the reconnecting line");
	run.type("while away\r");
	await run.waitFor((s) => s.includes("Sending: while away"), "the held message");
	const requestsBefore = fake.requests.length;

	fake.enqueue({ text: "answer after the server came back" });
	process.kill(run.pid, "SIGSTOP");
	away.release();
	server = await serve();
	process.kill(run.pid, "SIGCONT");
	await run.waitFor((s) => s.includes("answer after the server came back"), "the held message answered", 30_000);
	expect(text(run.screen())).not.toContain("Sending: while away");
	const sent = fake.requests.slice(requestsBefore).map((r) => JSON.stringify(r));
	expect(sent.filter((r) => r.includes("while away"))).toHaveLength(1);
	run.type("\x04");
	expect(await run.exited).toBe(0);
	server.kill("SIGTERM");
	await server.exited;
}, 60_000);

function text(lines: string[]): string {
	return lines.join("\n");
}
