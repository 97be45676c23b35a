import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findLocalServer } from "../../src/host/local-server.ts";
import { BUNDLE_PATH, DEVICE_TOKEN_HEADER } from "../../src/protocol/server-info.ts";
import { startServe } from "../support/serve-process.ts";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
	for (const f of cleanups.splice(0).reverse()) await f();
});

test("p2 serve --host 127.0.0.2 prints the origin it listens on, and this device's launcher finds it there", async () => {
	const dir = mkdtempSync(join(tmpdir(), "p2-origin-"));
	cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
	const served = await startServe(dir, (proc) => cleanups.push(() => proc.kill(9)), ["--host", "127.0.0.2"]);
	const origin = `http://127.0.0.2:${served.info.port}`;
	expect(served.out).toContain(`p2 server listening on ${origin}\n`);
	expect(served.link).toStartWith(`${origin}/owner#`);
	expect(served.info.origin).toBe(origin);
	const probe = await fetch(`${origin}${BUNDLE_PATH}`, {
		method: "HEAD",
		headers: { [DEVICE_TOKEN_HEADER]: served.info.deviceToken },
	});
	expect(probe.status).toBe(200);
	expect((await findLocalServer(dir))?.origin).toBe(origin);
}, 30_000);
