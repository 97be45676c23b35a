/**
 * A p2 server runs without the engine's top compiler tier (`SERVER_ENGINE_ENV`): one started by hand starts
 * itself again with it, in the same process; a person's own setting is kept; the pinned Bun accepts it.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SERVER_ENGINE_ENV } from "../../src/protocol/server-engine.ts";
import { startServe } from "../support/serve-process.ts";

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
	for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function dataDir(): string {
	const dir = mkdtempSync(join(tmpdir(), "p2-serve-engine-"));
	cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
	return dir;
}

/** The process's environment entries for the engine's options. */
function engineOf(pid: number): string[] {
	return readFileSync(`/proc/${pid}/environ`, "utf8")
		.split("\0")
		.filter((entry) => entry.startsWith("BUN_JSC_"));
}

const stop = (proc: { kill(): void; exited: Promise<number> }) => async () => {
	proc.kill();
	await proc.exited;
};

describe("a server started by hand", () => {
	test("starts itself again with the server's engine options, in the same process, and serves", async () => {
		const served = await startServe(dataDir(), () => {});
		cleanups.push(stop(served.proc));
		expect(served.info.pid).toBe(served.proc.pid);
		expect(engineOf(served.proc.pid)).toEqual(["BUN_JSC_useFTLJIT=0"]);
		expect(served.link).toMatch(/^https?:\/\//);
	}, 30_000);

	test("keeps the person's own setting of them", async () => {
		const served = await startServe(dataDir(), () => {}, [], { BUN_JSC_useFTLJIT: "1" });
		cleanups.push(stop(served.proc));
		expect(engineOf(served.proc.pid)).toEqual(["BUN_JSC_useFTLJIT=1"]);
	}, 30_000);

	test("the pinned Bun accepts them (an upgrade that drops one would keep every server from starting)", () => {
		const run = Bun.spawnSync([process.execPath, "-e", "process.exit(0)"], {
			env: { ...process.env, ...SERVER_ENGINE_ENV },
			stderr: "pipe",
		});
		expect({ code: run.exitCode, stderr: run.stderr.toString() }).toEqual({ code: 0, stderr: "" });
	});
});
