import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultPlugins } from "../../src/server/plugins.ts";
import { startServer } from "../../src/server/server.ts";
import { DataDirBusyError, dataDirHolder, lockDataDir } from "../../src/server/store/data-dir-lock.ts";
import { serveRefused, startServe } from "../support/serve-process.ts";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
	for (const f of cleanups.splice(0).reverse()) await f();
});

function dataDir(): string {
	const dir = mkdtempSync(join(tmpdir(), "p2-lock-"));
	cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
	return dir;
}

describe("one server per data directory", () => {
	test("a second p2 serve names the holder and exits; a stopped holder keeps the directory; kill -9 frees it", async () => {
		const dir = dataDir();
		const first = await startServe(dir, (proc) => cleanups.push(() => proc.kill(9)));
		const refused = await serveRefused(dir);
		expect(refused.code).toBe(1);
		expect(refused.stderr).toContain(`in use by another p2 server (pid ${first.proc.pid}, ${first.info.origin})`);

		// Stopped, the holder answers nothing, and still nobody else may take its data.
		first.proc.kill("SIGSTOP");
		const whileStopped = await serveRefused(dir);
		expect(whileStopped.code).toBe(1);
		expect(whileStopped.stderr).toContain(`pid ${first.proc.pid}`);

		first.proc.kill("SIGKILL");
		await first.proc.exited;
		expect(dataDirHolder(dir)).toBeNull();
		const next = await startServe(dir, (proc) => cleanups.push(() => proc.kill(9)));
		expect(next.proc.pid).not.toBe(first.proc.pid);
	}, 60_000);

	test("in one process too: a second server on the same data is refused until the first stops", async () => {
		const dir = dataDir();
		const first = await startServer({ dataDir: dir, plugins: defaultPlugins(), env: {} });
		cleanups.push(() => first.stop());
		const caught = await startServer({ dataDir: dir, plugins: defaultPlugins(), env: {} }).catch((e) => e);
		expect(caught).toBeInstanceOf(DataDirBusyError);
		expect((caught as DataDirBusyError).holder).toMatchObject({ pid: process.pid, origin: first.origin });
		// The refused attempt let go of nothing: the first still holds the directory.
		expect(dataDirHolder(dir)).toBeInstanceOf(DataDirBusyError);
		await first.stop();
		expect(dataDirHolder(dir)).toBeNull();
		const second = await startServer({ dataDir: dir, plugins: defaultPlugins(), env: {} });
		cleanups.push(() => second.stop());
	});

	test("the lock is released once, and a released directory can be taken again", () => {
		const dir = dataDir();
		const lock = lockDataDir(dir);
		expect(() => lockDataDir(dir)).toThrow(DataDirBusyError);
		lock.release();
		lock.release();
		const again = lockDataDir(dir);
		again.release();
	});
});
