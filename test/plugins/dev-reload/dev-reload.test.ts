import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { devContract } from "../../../src/plugins/dev-reload/contract.ts";
import { BUNDLE_PATH, DEVICE_TOKEN_HEADER } from "../../../src/protocol/server-info.ts";
import { defaultPlugins } from "../../../src/server/plugins.ts";
import { type P2Server, startServer } from "../../../src/server/server.ts";
import { connectClient } from "../../support/p2-server.ts";

let server: P2Server | undefined;
let dir: string | undefined;
afterEach(async () => {
	await server?.stop();
	server = undefined;
	if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A server whose "sources" are a string the test changes; each build is counted. */
async function start(devReload: boolean) {
	dir = mkdtempSync(join(tmpdir(), "p2-dev-"));
	const sources = { text: "globalThis.ui = 1;", builds: 0 };
	server = await startServer({
		dataDir: dir,
		plugins: defaultPlugins(),
		env: {},
		log: { echo: false },
		devReload,
		bundle: async () => {
			sources.builds++;
			return { source: sources.text, hash: new Bun.CryptoHasher("sha256").update(sources.text).digest("hex") };
		},
	});
	const owner = await connectClient(server, { [DEVICE_TOKEN_HEADER]: server.deviceToken });
	const served = async () =>
		(
			await fetch(`${server?.origin}${BUNDLE_PATH}`, { headers: { [DEVICE_TOKEN_HEADER]: server?.deviceToken ?? "" } })
		).text();
	return { sources, owner, dev: await owner.open(devContract, {}), served };
}

describe("/dev-reload on the server", () => {
	test("in development mode the bundle is built again and served; an unchanged one says so", async () => {
		const { sources, dev, served } = await start(true);
		expect(dev.state?.available).toBe(true);
		expect(await served()).toBe("globalThis.ui = 1;");
		sources.text = "globalThis.ui = 2;";
		// Served from the build already made until a reload asks for a new one.
		expect(await served()).toBe("globalThis.ui = 1;");
		const first = await dev.call("reload", {});
		expect(first).toEqual({ changed: true, message: "Built a new UI; every p2 connected takes it at its next check." });
		expect(await served()).toBe("globalThis.ui = 2;");
		expect(await dev.call("reload", {})).toMatchObject({
			changed: false,
			message: "No change to the UI since it was built.",
		});
		expect(sources.builds).toBe(3);
	});

	test("a server not in development mode refuses, and builds nothing", async () => {
		const { sources, dev } = await start(false);
		expect(dev.state?.available).toBe(false);
		await expect(dev.call("reload", {})).rejects.toThrow("not in development mode");
		expect(sources.builds).toBe(0);
	});
});
