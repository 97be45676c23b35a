import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEVICE_TOKEN_HEADER, EXIT_PATH, readServerInfo, SERVER_INFO_FILE } from "../../src/protocol/server-info.ts";
import { watchIdle } from "../../src/server/idle-watch.ts";
import { defaultPlugins } from "../../src/server/plugins.ts";
import { type P2Server, startServer } from "../../src/server/server.ts";
import { connectClient } from "../support/p2-server.ts";
import { waitUntil } from "../support/wait.ts";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
	for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function server(onExitRequest?: () => "stopping" | "busy"): Promise<P2Server> {
	const dataDir = mkdtempSync(join(tmpdir(), "p2-device-server-"));
	const started = await startServer({
		dataDir,
		plugins: defaultPlugins(),
		env: {},
		advertise: true,
		build: "src:test",
		...(onExitRequest ? { onExitRequest } : {}),
	});
	cleanups.push(async () => {
		await started.stop();
		rmSync(dataDir, { recursive: true, force: true });
	});
	return started;
}

describe("this device's server as a launcher starts it", () => {
	test("idle only while nobody is connected and no run is live", async () => {
		const s = await server();
		let ended = 0;
		const watch = watchIdle(s.ctx, 60_000, () => ended++);
		cleanups.push(() => watch.stop());
		expect(watch.idle()).toBe(true);
		const client = await connectClient(s, { [DEVICE_TOKEN_HEADER]: s.deviceToken });
		await waitUntil(() => !watch.idle(), "someone connected");
		client.close();
		await waitUntil(() => watch.idle(), "nobody connected");
		s.ctx.bus.emit({ type: "session.busy", session: "s1", busy: true });
		expect(watch.idle()).toBe(false);
		expect(watch.busy()).toBe(true);
		s.ctx.bus.emit({ type: "session.busy", session: "s1", busy: false });
		expect(watch.idle()).toBe(true);
		expect(ended).toBe(0);
	});

	test("it ends when idle for its time", async () => {
		const s = await server();
		let ended = 0;
		const watch = watchIdle(s.ctx, 20, () => ended++);
		cleanups.push(() => watch.stop());
		await waitUntil(() => ended === 1, "the idle end");
	});

	test("server.json says which build and that a launcher started it; only this device's owner may ask it to make way", async () => {
		let answer: "stopping" | "busy" = "busy";
		const s = await server(() => answer);
		const info = readServerInfo(JSON.parse(readFileSync(join(s.ctx.dataDir, SERVER_INFO_FILE), "utf8")));
		expect(info).toMatchObject({ build: "src:test", auto: true });
		const post = (headers: Record<string, string>) =>
			fetch(`${s.origin}${EXIT_PATH}`, { method: "POST", headers: { origin: s.origin, ...headers } });
		expect((await post({})).status).toBe(403);
		expect((await post({ [DEVICE_TOKEN_HEADER]: s.deviceToken })).status).toBe(409);
		answer = "stopping";
		expect((await post({ [DEVICE_TOKEN_HEADER]: s.deviceToken })).status).toBe(202);
	});

	test("a server started with p2 serve is not one a launcher may ask to go", async () => {
		const s = await server();
		expect(existsSync(join(s.ctx.dataDir, SERVER_INFO_FILE))).toBe(true);
		const info = readServerInfo(JSON.parse(readFileSync(join(s.ctx.dataDir, SERVER_INFO_FILE), "utf8")));
		expect(info?.auto).toBeUndefined();
		const res = await fetch(`${s.origin}${EXIT_PATH}`, {
			method: "POST",
			headers: { origin: s.origin, [DEVICE_TOKEN_HEADER]: s.deviceToken },
		});
		expect(res.status).toBe(404);
	});
});
