import { describe, expect, test } from "bun:test";
import { type ChatEntry, chatContract } from "../../../src/plugins/chat/contract.ts";
import { conversationsContract } from "../../../src/plugins/subagents/contract.ts";
import { usageContract } from "../../../src/plugins/usage/contract.ts";
import { chatFixture, requestId } from "../../support/chat-fixture.ts";
import { joinAsGuest } from "../../support/guests.ts";
import { connectClient, waitForState } from "../../support/p2-server.ts";

const fixture = chatFixture();

interface FakeRequest {
	messages: { role: string; content: unknown }[];
	tools?: { function: { name: string } }[];
}

const toolNames = (request: unknown) => ((request as FakeRequest).tools ?? []).map((t) => t.function.name);
const answerOf = (entries: readonly ChatEntry[]) =>
	entries
		.filter((e) => e.kind === "assistant")
		.map((e) => (e.kind === "assistant" ? e.parts.map((p) => p.text).join("") : ""))
		.at(-1);

describe("subagents", () => {
	test("two subagent calls in one turn run as two child conversations whose answers come back to the parent", async () => {
		const { server, owner, session, chat } = await fixture.openChat();
		server.fake.enqueue(
			{
				toolCalls: [
					{ name: "subagent", args: { task: "Count the files" } },
					{ name: "subagent", args: { task: "Read the README" } },
				],
			},
			{ text: "Child answer one.", chunks: 3 },
			{ text: "Child answer two.", chunks: 3 },
			{ text: "Both subagents answered." },
		);
		await chat.call("send", { text: "delegate", mode: "steer", requestId: requestId() });
		const state = await waitForState(
			chat,
			(s) =>
				s.live === null && s.entries.some((e) => e.kind === "assistant" && e.parts.length && e.toolCalls.length === 0),
		);
		const tools = state.entries.filter((e) => e.kind === "tool");
		expect(tools.map((t) => t.kind === "tool" && t.name)).toEqual(["subagent", "subagent"]);
		const results = tools.map((t) => (t.kind === "tool" ? t.result.text : ""));
		const answers = results.map((r) => r.split("\n")[0]).sort();
		expect(answers).toEqual(["Child answer one.", "Child answer two."]);
		for (const t of tools) {
			expect(t.kind === "tool" && t.result.isError).toBe(false);
			expect(t.kind === "tool" && t.result.details?.status).toBe("done");
		}
		expect(answerOf(state.entries)).toBe("Both subagents answered.");
		// The parent's model read both answers.
		const last = server.fake.requests[3] as FakeRequest;
		const read = JSON.stringify(last.messages);
		expect(read).toContain("Child answer one.");
		expect(read).toContain("Child answer two.");
		// The main conversation's agent has the tool; a subagent's (depth 1) does not.
		expect(toolNames(server.fake.requests[0])).toContain("subagent");
		expect(toolNames(server.fake.requests[1])).not.toContain("subagent");
		expect(toolNames(server.fake.requests[1])).toContain("bash");

		const conversations = await owner.open(conversationsContract, { session });
		const listed = await waitForState(conversations, (s) => s.conversations.length === 3);
		expect(listed.conversations[0]).toMatchObject({ id: "main", parent: null, status: null });
		const children = listed.conversations.slice(1);
		expect(children.map((c) => c.title).sort()).toEqual(["Count the files", "Read the README"]);
		for (const child of children) {
			expect(child).toMatchObject({ parent: "main", status: "done", archived: false, model: "fake/fake-model" });
			// Each child is a durable conversation of its own: its task, then its answer.
			const view = await owner.open(chatContract, { session, conversation: child.id });
			await view.ready;
			const entries = view.state?.entries ?? [];
			expect(entries[0]).toMatchObject({ kind: "user", text: child.title, author: { name: "agent" } });
			expect(["Child answer one.", "Child answer two."]).toContain(answerOf(entries) ?? "");
			const result = tools.find((t) => t.kind === "tool" && t.result.details?.conversation === child.id);
			expect(result?.kind === "tool" && result.result.text.split("\n")[0]).toBe(answerOf(entries) ?? "");
			view.close();
		}
	});

	test("stopping the parent's run stops both running children; they are marked aborted", async () => {
		const { server, owner, session, chat } = await fixture.openChat();
		server.fake.enqueue(
			{
				toolCalls: [
					{ name: "subagent", args: { task: "Task A" } },
					{ name: "subagent", args: { task: "Task B" } },
				],
			},
			{ hang: true },
			{ hang: true },
		);
		await chat.call("send", { text: "delegate", mode: "steer", requestId: requestId() });
		// Both children are streaming at once: their requests both arrived and neither has ended.
		await server.fake.waitForRequest(3);
		const conversations = await owner.open(conversationsContract, { session });
		await waitForState(conversations, (s) => s.conversations.filter((c) => c.status === "running").length === 2);
		// The parent's card shows what each child is doing.
		await waitForState(chat, (s) => (s.live?.tools.length ?? 0) === 2 && s.live!.tools.every((t) => t.output !== ""));
		expect(await chat.call("stop", null)).toMatchObject({ stopped: true });
		const listed = await waitForState(conversations, (s) =>
			s.conversations.slice(1).every((c) => c.status === "aborted"),
		);
		expect(listed.conversations).toHaveLength(3);
		await waitForState(chat, (s) => s.live === null);
		for (const child of listed.conversations.slice(1)) {
			const view = await owner.open(chatContract, { session, conversation: child.id });
			const state = await waitForState(view, (s) => s.live === null);
			expect(state.entries.some((e) => e.kind === "assistant" && e.stopReason === "aborted")).toBe(true);
			view.close();
		}
	});

	test("a subagent conversation can be archived and restored by a participant, not while it runs", async () => {
		const { server, owner, session, chat } = await fixture.openChat();
		server.fake.enqueue({ toolCalls: [{ name: "subagent", args: { task: "Small task" } }] }, { text: "Small answer." });
		await chat.call("send", { text: "go", mode: "steer", requestId: requestId() });
		await waitForState(chat, (s) => s.live === null && s.entries.filter((e) => e.kind === "assistant").length === 2);
		const conversations = await owner.open(conversationsContract, { session });
		const child = (await waitForState(conversations, (s) => s.conversations[1]?.status === "done")).conversations[1]!;
		await conversations.call("archive", { id: child.id });
		await waitForState(conversations, (s) => s.conversations[1]?.archived === true);
		await expect(conversations.call("archive", { id: "main" })).rejects.toThrow(/main conversation/);
		await conversations.call("restore", { id: child.id });
		await waitForState(conversations, (s) => s.conversations[1]?.archived === false);
	});

	test("the session's usage includes its subagents' answers", async () => {
		const { server, owner, session, chat } = await fixture.openChat();
		server.fake.enqueue(
			{ toolCalls: [{ name: "subagent", args: { task: "Work" } }], usage: { prompt: 10, completion: 1 } },
			{ text: "Done it.", usage: { prompt: 100, completion: 20 } },
			{ text: "Thanks.", usage: { prompt: 30, completion: 2 } },
		);
		const status = await owner.open(usageContract, { session, conversation: "main" });
		await chat.call("send", { text: "go", mode: "steer", requestId: requestId() });
		await waitForState(chat, (s) => s.live === null && s.entries.filter((e) => e.kind === "assistant").length === 2);
		const usage = await waitForState(status, (s) => s.session.output === 23);
		expect(usage.conversation.output).toBe(3);
		expect(usage.session.input).toBe(140);
	});

	test("a person follows up in a subagent's conversation: it runs again and its status follows", async () => {
		const { server, owner, session, chat } = await fixture.openChat();
		server.fake.enqueue({ toolCalls: [{ name: "subagent", args: { task: "First task" } }] }, { text: "First." });
		await chat.call("send", { text: "go", mode: "steer", requestId: requestId() });
		await waitForState(chat, (s) => s.live === null && s.entries.filter((e) => e.kind === "assistant").length === 2);
		const conversations = await owner.open(conversationsContract, { session });
		const child = (await waitForState(conversations, (s) => s.conversations[1]?.status === "done")).conversations[1]!;
		const childChat = await owner.open(chatContract, { session, conversation: child.id });
		server.fake.enqueue({ hang: true });
		expect(await childChat.call("send", { text: "And then?", mode: "steer", requestId: requestId() })).toEqual({
			status: "started",
		});
		await waitForState(conversations, (s) => s.conversations[1]?.status === "running");
		await childChat.call("stop", null);
		await waitForState(conversations, (s) => s.conversations[1]?.status === "aborted");
		await expect(childChat.call("fork", {})).rejects.toThrow("Forking a subagent conversation is not supported yet");
		// Choosing a model in a subagent's conversation is that conversation's choice, not the session's.
		const before = server.server.ctx.catalog.get(session);
		await childChat.call("configure", { model: { provider: "fake", id: "fake-model" }, thinkingLevel: "low" });
		const after = server.server.ctx.catalog.get(session);
		expect([after?.model, after?.thinkingLevel]).toEqual([before?.model, before?.thinkingLevel]);
		// The session keeps its own title: a subagent's messages do not name it.
		expect(conversations.state?.conversations[0]?.title).toBe("go");
	});

	test("guests see subagents as they see the main conversation: a full guest follows up, a view guest only watches", async () => {
		const { server, owner, session, chat } = await fixture.openChat();
		server.fake.enqueue(
			{ toolCalls: [{ name: "subagent", args: { task: "Shared task" } }] },
			{ text: "Shared answer." },
		);
		await chat.call("send", { text: "go", mode: "steer", requestId: requestId() });
		await waitForState(chat, (s) => s.live === null && s.entries.filter((e) => e.kind === "assistant").length === 2);
		const child = (
			await waitForState(await owner.open(conversationsContract, { session }), (s) => s.conversations.length === 2)
		).conversations[1]!;

		const full = await connectClient(server.server, {
			cookie: await joinAsGuest(server.server, owner, session, "full"),
		});
		const view = await connectClient(server.server, {
			cookie: await joinAsGuest(server.server, owner, session, "view"),
		});
		try {
			for (const guest of [full, view]) {
				const list = await guest.open(conversationsContract, { session });
				await list.ready;
				expect(list.state?.conversations.map((c) => c.id)).toEqual(["main", child.id]);
				const watched = await guest.open(chatContract, { session, conversation: child.id });
				await watched.ready;
				expect(answerOf(watched.state?.entries ?? [])).toBe("Shared answer.");
			}
			const viewChat = await view.open(chatContract, { session, conversation: child.id });
			await expect(
				viewChat.call("send", { text: "may I?", mode: "steer", requestId: requestId() }),
			).rejects.toMatchObject({ code: "forbidden" });
			const viewList = await view.open(conversationsContract, { session });
			await expect(viewList.call("archive", { id: child.id })).rejects.toMatchObject({ code: "forbidden" });

			server.fake.enqueue({ text: "Follow-up answered." });
			const fullChat = await full.open(chatContract, { session, conversation: child.id });
			expect(await fullChat.call("send", { text: "One more thing", mode: "steer", requestId: requestId() })).toEqual({
				status: "started",
			});
			const after = await waitForState(
				fullChat,
				(s) => s.live === null && answerOf(s.entries) === "Follow-up answered.",
			);
			const asked = after.entries.find((e) => e.kind === "user" && e.text === "One more thing");
			expect(asked?.kind === "user" && asked.author.role).toBe("full");
		} finally {
			full.close();
			view.close();
		}
	});

	test("the owner's settings may let subagents start subagents (one level deeper)", async () => {
		const deeper = await fixture.start();
		deeper.server.ctx.settings.update({ subagents: { maxDepth: 2 } });
		const owner = await deeper.connect();
		const { id } = await fixture.session(owner);
		const chat = await owner.open(chatContract, { session: id, conversation: "main" });
		deeper.fake.enqueue(
			{ toolCalls: [{ name: "subagent", args: { task: "Level one" } }] },
			{ toolCalls: [{ name: "subagent", args: { task: "Level two" } }] },
			{ text: "Two says hi." },
			{ text: "One passes it on." },
			{ text: "Main got it." },
		);
		await chat.call("send", { text: "deep", mode: "steer", requestId: requestId() });
		await waitForState(chat, (s) => s.live === null && answerOf(s.entries) === "Main got it.");
		expect(toolNames(deeper.fake.requests[1])).toContain("subagent");
		expect(toolNames(deeper.fake.requests[2])).not.toContain("subagent");
		const list = await owner.open(conversationsContract, { session: id });
		const state = await waitForState(list, (s) => s.conversations.length === 3);
		const [, one, two] = state.conversations;
		expect(one).toMatchObject({ parent: "main", title: "Level one", status: "done" });
		expect(two).toMatchObject({ parent: one!.id, title: "Level two", status: "done" });
	});

	test("a conversation no agent started cannot be opened (no one makes up a conversation of a session)", async () => {
		const { owner, session } = await fixture.openChat();
		await expect(owner.open(chatContract, { session, conversation: "made-up" })).rejects.toMatchObject({
			code: "not_found",
		});
	});

	test("a person's follow-up to a working subagent runs before its answer goes back to the parent", async () => {
		const { server, owner, session, cwd, chat } = await fixture.openChat();
		server.fake.enqueue(
			{ toolCalls: [{ name: "subagent", args: { task: "Wait for the file" } }] },
			{ toolCalls: [{ name: "bash", args: { command: "while [ ! -f go ]; do sleep 0.02; done; echo went" } }] },
			{ text: "Child first." },
			{ text: "Follow-up answered." },
			{ text: "Parent saw it." },
		);
		await chat.call("send", { text: "go", mode: "steer", requestId: requestId() });
		const list = await owner.open(conversationsContract, { session });
		const child = (await waitForState(list, (s) => s.conversations[1]?.status === "running")).conversations[1]!;
		const childChat = await owner.open(chatContract, { session, conversation: child.id });
		await waitForState(childChat, (s) => (s.live?.tools.length ?? 0) > 0);
		expect(await childChat.call("send", { text: "Also say hi", mode: "followUp", requestId: requestId() })).toEqual({
			status: "queued",
		});
		await Bun.write(`${cwd}/go`, "");
		const state = await waitForState(chat, (s) => s.live === null && answerOf(s.entries) === "Parent saw it.");
		const result = state.entries.find((e) => e.kind === "tool");
		expect(result?.kind === "tool" && result.result.text.split("\n")[0]).toBe("Follow-up answered.");
		const childState = await waitForState(childChat, (s) => s.live === null);
		expect(childState.entries.some((e) => e.kind === "user" && e.text === "Also say hi")).toBe(true);
	});

	test("a subagent whose context overflows is compacted and goes on; its answer after that is the one returned", async () => {
		const { server, owner, session, cwd, chat } = await fixture.openChat();
		server.fake.enqueue(
			{ toolCalls: [{ name: "subagent", args: { task: "Long work" } }] },
			{ toolCalls: [{ name: "bash", args: { command: "while [ ! -f go ]; do sleep 0.02; done; echo went" } }] },
			{ text: "Child first.", usage: { prompt: 1000, completion: 10 } },
			{
				status: 400,
				error:
					"This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens.",
			},
			{ text: "## Summary\n- the child worked" },
			{ text: "After the overflow." },
			{ text: "Parent done." },
		);
		await chat.call("send", { text: "go", mode: "steer", requestId: requestId() });
		const list = await owner.open(conversationsContract, { session });
		const child = (await waitForState(list, (s) => s.conversations[1]?.status === "running")).conversations[1]!;
		const childChat = await owner.open(chatContract, { session, conversation: child.id });
		await waitForState(childChat, (s) => (s.live?.tools.length ?? 0) > 0);
		await childChat.call("send", { text: "And more", mode: "followUp", requestId: requestId() });
		await Bun.write(`${cwd}/go`, "");
		const state = await waitForState(chat, (s) => s.live === null && answerOf(s.entries) === "Parent done.");
		const result = state.entries.find((e) => e.kind === "tool");
		expect(result?.kind === "tool" && result.result.text.split("\n")[0]).toBe("After the overflow.");
		expect(result?.kind === "tool" && result.result.details?.status).toBe("done");
		const childState = await waitForState(childChat, (s) => s.live === null && s.compacting === null);
		expect(childState.entries.some((e) => e.kind === "compaction")).toBe(true);
	});
});
