import { afterEach, expect, test } from "bun:test";
import { chatContract } from "../../../src/plugins/chat/contract.ts";
import { sessionsContract } from "../../../src/plugins/sessions/contract.ts";
import { conversationsContract } from "../../../src/plugins/subagents/contract.ts";
import { DEVICE_TOKEN_HEADER } from "../../../src/protocol/server-info.ts";
import { fakeModelDirs } from "../../support/fake-openai.ts";
import { connectClient, waitForState } from "../../support/p2-server.ts";
import { asServer, startServe } from "../../support/serve-process.ts";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
	for (const f of cleanups.splice(0).reverse()) await f();
});

test("kill -9 while a subagent works: every committed entry of both conversations is kept, both runs are marked interrupted, the subagent aborted", async () => {
	const { dataDir, cwd, fake } = await fakeModelDirs(cleanups, "p2-subagent-crash-");

	const first = await startServe(dataDir, (proc) => cleanups.push(() => proc.kill(9)));
	let c = await connectClient(asServer(first.info), { [DEVICE_TOKEN_HEADER]: first.info.deviceToken });
	const sessions = await c.open(sessionsContract, {});
	const { id } = await sessions.call("create", { cwd });
	let chat = await c.open(chatContract, { session: id, conversation: "main" });
	fake.enqueue(
		{ toolCalls: [{ name: "subagent", args: { task: "Look around" } }] },
		{ text: "Listing first.", toolCalls: [{ name: "bash", args: { command: "echo looked" } }] },
		{ hang: true },
	);
	await chat.call("send", { text: "delegate", mode: "steer", requestId: "request-crash-1" });
	// The child's second request: its first answer and its tool's result are committed, and it is streaming.
	await fake.waitForRequest(3);
	let conversations = await c.open(conversationsContract, { session: id });
	const child = (await waitForState(conversations, (s) => s.conversations[1]?.status === "running")).conversations[1]!;
	const childChat = await c.open(chatContract, { session: id, conversation: child.id });
	await waitForState(childChat, (s) => s.entries.some((e) => e.kind === "tool"));
	c.close();
	first.proc.kill(9);
	await first.proc.exited;

	const second = await startServe(dataDir, (proc) => cleanups.push(() => proc.kill(9)));
	c = await connectClient(asServer(second.info), { [DEVICE_TOKEN_HEADER]: second.info.deviceToken });
	cleanups.push(() => c.close());
	chat = await c.open(chatContract, { session: id, conversation: "main" });
	expect(chat.state?.entries.map((e) => e.kind)).toEqual(["user", "assistant", "interrupted"]);
	expect(chat.state?.live).toBeNull();
	const reopened = await c.open(chatContract, { session: id, conversation: child.id });
	expect(reopened.state?.entries.map((e) => e.kind)).toEqual(["user", "assistant", "tool", "interrupted"]);
	const tool = reopened.state?.entries.find((e) => e.kind === "tool");
	expect(tool?.kind === "tool" && tool.result.text.trim()).toBe("looked");
	conversations = await c.open(conversationsContract, { session: id });
	expect(conversations.state?.conversations.map((x) => [x.id, x.status])).toEqual([
		["main", null],
		[child.id, "aborted"],
	]);
}, 60_000);
