import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BOOTSTRAP_SOURCE, devBootstrap, INPUTS_FILE } from "../../src/dev-bootstrap.ts";
import { buildBootstrap } from "../../src/dev-bootstrap-build.ts";

let cache = "";
afterEach(() => {
	if (cache) rmSync(cache, { recursive: true, force: true });
});

/** The bootstrap's start-up report once `worker` has locked down and started an empty guest (its bundle loaded). */
function startReport(worker: Worker): Promise<string> {
	return new Promise<string>((resolve, reject) => {
		worker.addEventListener("message", (event: MessageEvent) => {
			const message = event.data as { kind: string; text?: string; message?: string };
			if (message.kind === "log" && message.text?.startsWith("timeline ")) resolve(message.text);
			if (message.kind === "error") reject(new Error(message.message));
		});
		worker.addEventListener("error", (event) => reject(new Error((event as ErrorEvent).message)));
		worker.postMessage({ kind: "init", start: {} });
	}).finally(() => worker.terminate());
}

const EMPTY_GUEST = "globalThis.p2Guest = { start() {} };";

/** Starts a worker from `bootstrap`, gives it an empty guest and resolves with the bootstrap's start-up report. */
function startedFrom(bootstrap: string): Promise<string> {
	const worker = new Worker(bootstrap, { env: {}, smol: true } as WorkerOptions);
	worker.postMessage({ kind: "load", bundle: EMPTY_GUEST });
	return startReport(worker);
}

describe("the worker's bootstrap from source, kept built", () => {
	test("none kept: the source; once built, the built script, which locks down and starts a guest", async () => {
		cache = mkdtempSync(join(tmpdir(), "p2-bootstrap-"));
		expect(devBootstrap(cache, false)).toBe(BOOTSTRAP_SOURCE);
		await buildBootstrap(cache);
		const built = devBootstrap(cache, false);
		expect(built.startsWith(cache)).toBe(true);
		expect(readFileSync(built, "utf8")).toContain('"use strict"');
		const inputs: string[] = JSON.parse(readFileSync(join(cache, INPUTS_FILE), "utf8"));
		expect(inputs).toContain(BOOTSTRAP_SOURCE);
		expect(inputs.some((path) => path.includes("node_modules"))).toBe(false);
		expect(await startedFrom(built)).toMatch(/^timeline lockdown=\d+/);
		// Its bytecode beside it, named on its first line: the worker does not parse it again.
		expect(readFileSync(built, "utf8").split("\n", 1)[0]).toContain("@bytecode");
		expect(statSync(`${built}.jsc`).size).toBeGreaterThan(0);
	}, 30_000);

	test("a built script whose bytecode is gone or damaged still starts: it is parsed instead", async () => {
		cache = mkdtempSync(join(tmpdir(), "p2-bootstrap-"));
		await buildBootstrap(cache);
		const built = devBootstrap(cache, false);
		writeFileSync(`${built}.jsc`, new Uint8Array(4096).fill(7));
		expect(await startedFrom(built)).toMatch(/^timeline lockdown=\d+/);
		rmSync(`${built}.jsc`);
		expect(await startedFrom(built)).toMatch(/^timeline lockdown=\d+/);
	}, 30_000);

	test("only the newest builds are kept, each with its bytecode", async () => {
		cache = mkdtempSync(join(tmpdir(), "p2-bootstrap-"));
		const { keepMade } = await import("../../src/server/sources-cache.ts");
		for (const [i, key] of ["a", "b", "c", "d"].entries()) {
			expect(keepMade(cache, key, `// ${key}`, new TextEncoder().encode(`bytecode ${key}`))).toBe(true);
			utimesSync(join(cache, `${key}.js`), i + 1, i + 1);
		}
		expect(readdirSync(cache).sort()).toEqual(["b.js", "b.js.jsc", "c.js", "c.js.jsc", "d.js", "d.js.jsc"]);
		expect(readFileSync(join(cache, "d.js.jsc"), "utf8")).toBe("bytecode d");
	});

	test("a source changed since the build: the source again, not the stale script", async () => {
		cache = mkdtempSync(join(tmpdir(), "p2-bootstrap-"));
		await buildBootstrap(cache);
		const input = join(cache, "an-input.ts");
		writeFileSync(input, "export {};\n");
		// A list naming a source that then changes, as an edit of the bootstrap would.
		writeFileSync(join(cache, INPUTS_FILE), JSON.stringify([input]));
		const { bootstrapKey } = await import("../../src/dev-bootstrap.ts");
		writeFileSync(join(cache, `${bootstrapKey([input])}.js`), "// built from the old source");
		expect(devBootstrap(cache, false)).toBe(join(cache, `${bootstrapKey([input])}.js`));
		writeFileSync(input, "export const changed = true;\n");
		expect(devBootstrap(cache, false)).toBe(BOOTSTRAP_SOURCE);
		// An unreadable list is no list.
		writeFileSync(join(cache, INPUTS_FILE), "{");
		expect(devBootstrap(cache, false)).toBe(BOOTSTRAP_SOURCE);
	}, 30_000);
});

describe("a prewarmed worker whose bootstrap fails", () => {
	test("the guest's worker starts from the default bootstrap instead", async () => {
		const { discardSpareWorker, prewarmWorker, spareWorkerFailure, takeWorker } = await import(
			"../../src/host/worker-spawn.ts"
		);
		const { waitUntil } = await import("../support/wait.ts");
		cache = mkdtempSync(join(tmpdir(), "p2-bootstrap-"));
		const broken = join(cache, "broken.js");
		writeFileSync(broken, "throw new Error('a broken build');\n");
		try {
			prewarmWorker(broken);
			await waitUntil(() => spareWorkerFailure() !== undefined, "the broken bootstrap's failure");
			const { worker } = takeWorker({ source: EMPTY_GUEST, hash: "h" });
			expect(await startReport(worker)).toMatch(/^timeline lockdown=\d+/);
		} finally {
			discardSpareWorker();
		}
	}, 30_000);
});
