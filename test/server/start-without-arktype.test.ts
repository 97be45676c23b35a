import { afterEach, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chatContract } from "../../src/plugins/chat/contract.ts";
import { sessionsContract } from "../../src/plugins/sessions/contract.ts";
import { DEVICE_TOKEN_HEADER } from "../../src/protocol/server-info.ts";
import { cachedGuestBundle } from "../../src/server/bundle.ts";
import { loadServerValidators } from "../../src/server/server-validators.ts";
import { fakeModelDirs } from "../support/fake-openai.ts";
import { connectClient, waitForState } from "../support/p2-server.ts";
import { asServer, startServe } from "../support/serve-process.ts";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
	for (const f of cleanups.splice(0).reverse()) await f();
});

// What the executable carries built, a server run from source keeps built under the sources' stamp: the
// validators and the UI bundle (whose making loads arktype). Made here first, as a start before this one would.
beforeAll(async () => {
	await loadServerValidators();
	await cachedGuestBundle();
}, 120_000);

test("a server starts, reads models.json, opens a session and runs a message without loading arktype", async () => {
	const { dataDir, cwd, fake } = await fakeModelDirs(cleanups, "p2-no-arktype-");

	// P2_TRACE_ARKTYPE makes the first load of arktype write its stack to stderr.
	const server = await startServe(dataDir, (proc) => cleanups.push(() => proc.kill(9)), [], { P2_TRACE_ARKTYPE: "1" });
	const c = await connectClient(asServer(server.info), { [DEVICE_TOKEN_HEADER]: server.info.deviceToken });
	const sessions = await c.open(sessionsContract, {});
	const { id } = await sessions.call("create", { cwd });
	const chat = await c.open(chatContract, { session: id, conversation: "main" });
	fake.enqueue({ text: "hello back" });
	await chat.call("send", { text: "hello", mode: "steer", requestId: "request-one" });
	await waitForState(chat, (s) => s.live === null && s.entries.some((e) => e.kind === "assistant"));
	// Opened again: its stored rows are read and checked.
	const again = await c.open(chatContract, { session: id, conversation: "main" });
	expect(again.state?.entries.map((e) => e.kind)).toEqual(["user", "assistant"]);
	expect(fake.requests.length).toBe(1);

	c.close();
	server.proc.kill();
	await server.proc.exited;
	expect(await new Response(server.proc.stderr).text()).not.toContain("arktype loaded");
}, 60_000);

test("a refused call still gets arktype's own words (arktype loads for them)", async () => {
	const dataDir = mkdtempSync(join(tmpdir(), "p2-no-arktype-"));
	cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
	const server = await startServe(dataDir, (proc) => cleanups.push(() => proc.kill(9)), [], { P2_TRACE_ARKTYPE: "1" });
	const c = await connectClient(asServer(server.info), { [DEVICE_TOKEN_HEADER]: server.info.deviceToken });
	const sessions = await c.open(sessionsContract, {});
	await expect(sessions.call("create", { cwd: 42 } as never)).rejects.toThrow(/cwd must be a string/);
	c.close();
	server.proc.kill();
	await server.proc.exited;
	expect(await new Response(server.proc.stderr).text()).toContain("arktype loaded");
}, 60_000);
