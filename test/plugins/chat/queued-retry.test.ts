import { afterEach, expect, test } from "bun:test";
import { chatContract } from "../../../src/plugins/chat/contract.ts";
import { sessionsContract } from "../../../src/plugins/sessions/contract.ts";
import { DEVICE_TOKEN_HEADER } from "../../../src/protocol/server-info.ts";
import { fakeModelDirs } from "../../support/fake-openai.ts";
import { connectClient, waitForState } from "../../support/p2-server.ts";
import { asServer, startServe } from "../../support/serve-process.ts";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
	for (const f of cleanups.splice(0).reverse()) await f();
});

test("a queued message handed back after kill -9 is not started when its send is retried with the same request id", async () => {
	const { dataDir, cwd, fake } = await fakeModelDirs(cleanups, "p2-requeue-");

	const first = await startServe(dataDir, (proc) => cleanups.push(() => proc.kill(9)));
	let c = await connectClient(asServer(first.info), { [DEVICE_TOKEN_HEADER]: first.info.deviceToken });
	const sessions = await c.open(sessionsContract, {});
	const { id } = await sessions.call("create", { cwd });
	let chat = await c.open(chatContract, { session: id, conversation: "main" });
	fake.enqueue({ toolCalls: [{ name: "bash", args: { command: "sleep 8" } }] });
	await chat.call("send", { text: "message A", mode: "steer", requestId: "request-a-1" });
	await waitForState(chat, (s) => (s.live?.tools.length ?? 0) > 0);
	const queued = await chat.call("send", { text: "message B", mode: "followUp", requestId: "request-b-1" });
	expect(queued).toEqual({ status: "queued" });
	c.close();
	first.proc.kill(9);
	await first.proc.exited;

	const second = await startServe(dataDir, (proc) => cleanups.push(() => proc.kill(9)));
	c = await connectClient(asServer(second.info), { [DEVICE_TOKEN_HEADER]: second.info.deviceToken });
	cleanups.push(() => c.close());
	chat = await c.open(chatContract, { session: id, conversation: "main" });
	expect(chat.state?.returned.map((r) => r.texts)).toEqual([["message B"]]);
	const entries = chat.state?.entries.map((e) => e.kind);
	expect(entries).toEqual(["user", "assistant", "interrupted"]);

	// The editor's retry of B, after the reconnect: B was handed back, so it does not run as well.
	const retried = await chat.call("send", { text: "message B", mode: "followUp", requestId: "request-b-1" });
	expect(retried).toEqual({ status: "duplicate" });
	expect(chat.state?.live).toBeNull();
	expect(chat.state?.entries.map((e) => e.kind)).toEqual(entries);
	expect(fake.requests.length).toBe(1);
}, 60_000);
