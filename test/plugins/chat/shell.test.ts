import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { chatFixture, requestId } from "../../support/chat-fixture.ts";
import { waitForState } from "../../support/p2-server.ts";

const fixture = chatFixture();
const rid = requestId;
const openChat = () => fixture.openChat();

type Body = { messages: { role: string; content: unknown }[] };
const sentText = (body: unknown) =>
	(body as Body).messages
		.map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)))
		.join("\n");

describe("the person's ! commands", () => {
	test("!cmd runs in the session's directory; the entry has its output and exit code; the model reads it next", async () => {
		const { server, cwd, chat } = await openChat();
		expect(
			await chat.call("shell", { command: "pwd; echo from-bash; exit 3", includeInContext: true, requestId: rid() }),
		).toEqual({
			exitCode: 3,
			cancelled: false,
		});
		const state = await waitForState(chat, (s) => s.shell === null && s.entries.some((e) => e.kind === "shell"));
		expect(state.entries.at(-1)).toMatchObject({
			kind: "shell",
			command: "pwd; echo from-bash; exit 3",
			output: `${cwd}\nfrom-bash`,
			exitCode: 3,
			cancelled: false,
			includeInContext: true,
		});
		server.fake.enqueue({ text: "I see it." });
		await chat.call("send", { text: "what did it print?", mode: "steer", requestId: rid() });
		await waitForState(chat, (s) => s.live === null && s.entries.at(-1)?.kind === "assistant");
		const sent = sentText(server.fake.requests[0]);
		expect(sent).toContain("$ pwd; echo from-bash; exit 3");
		expect(sent).toContain("from-bash");
		expect(sent).toContain("(exit code 3)");
	});

	test("!!cmd stays out of the model's context", async () => {
		const { server, chat } = await openChat();
		await chat.call("shell", { command: "echo private-output", includeInContext: false, requestId: rid() });
		server.fake.enqueue({ text: "ok" });
		await chat.call("send", { text: "hello", mode: "steer", requestId: rid() });
		await waitForState(chat, (s) => s.live === null && s.entries.at(-1)?.kind === "assistant");
		expect(sentText(server.fake.requests[0])).not.toContain("private-output");
	});

	test("output streams to everyone while it runs; Escape (stop) cancels it; nothing else runs meanwhile", async () => {
		const { chat } = await openChat();
		const running = chat.call("shell", { command: "echo started; sleep 30", includeInContext: true, requestId: rid() });
		await waitForState(chat, (s) => s.shell?.output.includes("started") === true);
		const refused = await chat.call("send", { text: "now", mode: "steer", requestId: rid() }).catch((e) => e);
		expect(refused).toMatchObject({ code: "conflict" });
		expect(await chat.call("stop", null)).toMatchObject({ stopped: true });
		expect(await running).toEqual({ exitCode: null, cancelled: true });
		const state = await waitForState(chat, (s) => s.shell === null);
		expect(state.entries.at(-1)).toMatchObject({ kind: "shell", cancelled: true, output: "started" });
	});

	test("!cmd while the agent works runs at once, shows pending, and its entry lands at the run's next boundary", async () => {
		const { server, cwd, chat } = await openChat();
		// The agent's tool waits for a file, so the command ends while a tool call is open.
		server.fake.enqueue(
			{ toolCalls: [{ name: "bash", args: { command: "while [ ! -e go ]; do sleep 0.05; done; echo tool-done" } }] },
			{ hang: true },
		);
		expect(await chat.call("send", { text: "work", mode: "steer", requestId: rid() })).toEqual({ status: "started" });
		await waitForState(chat, (s) => s.live?.tools.length === 1);
		expect(await chat.call("shell", { command: "echo side-output", includeInContext: true, requestId: rid() })).toEqual(
			{ exitCode: 0, cancelled: false },
		);
		// Ended, but pending: a write now would split the tool call from its result.
		const pending = await waitForState(chat, (s) => s.shell?.ended !== undefined);
		expect(pending.shell).toMatchObject({ output: "side-output", ended: { exitCode: 0, cancelled: false } });
		expect(pending.entries.some((e) => e.kind === "shell")).toBe(false);
		expect(pending.live).not.toBeNull();

		writeFileSync(join(cwd, "go"), "");
		const placed = await waitForState(chat, (s) => s.shell === null && s.entries.some((e) => e.kind === "shell"));
		expect(placed.entries.map((e) => e.kind)).toEqual(["user", "assistant", "tool", "shell"]);
		expect(placed.entries.at(-1)).toMatchObject({ kind: "shell", output: "side-output", exitCode: 0 });
		// The running agent goes on without it (pi: it reads the command on its next run).
		expect(sentText(await server.fake.waitForRequest(2))).not.toContain("side-output");
		expect(await chat.call("stop", null)).toMatchObject({ stopped: true });
		await waitForState(chat, (s) => s.live === null);

		server.fake.enqueue({ text: "I see it." });
		await chat.call("send", { text: "what did it print?", mode: "steer", requestId: rid() });
		await waitForState(chat, (s) => s.live === null && s.entries.at(-1)?.kind === "assistant");
		expect(sentText(server.fake.requests[2])).toContain("side-output");
	});

	test("a command that outlives the run it began beside is placed when it ends; Escape stops the agent first", async () => {
		const { server, cwd, chat } = await openChat();
		server.fake.enqueue({ hang: true });
		await chat.call("send", { text: "think", mode: "steer", requestId: rid() });
		await waitForState(chat, (s) => s.live !== null);
		const running = chat.call("shell", {
			command: "echo waiting; while [ ! -e go ]; do sleep 0.05; done; echo done",
			includeInContext: false,
			requestId: rid(),
		});
		await waitForState(chat, (s) => s.shell?.output.includes("waiting") === true);
		await chat.call("send", { text: "then this", mode: "followUp", requestId: rid() });
		// Escape stops the agent first (pi's order); the command goes on.
		expect(await chat.call("stop", null)).toMatchObject({ stopped: true });
		const stopped = await waitForState(chat, (s) => s.live === null);
		expect(stopped.shell?.output).toContain("waiting");
		writeFileSync(join(cwd, "go"), "");
		expect(await running).toEqual({ exitCode: 0, cancelled: false });
		const placed = await waitForState(chat, (s) => s.shell === null && s.entries.at(-1)?.kind === "shell");
		expect(placed.entries.at(-1)).toMatchObject({ output: "waiting\ndone", includeInContext: false });
	});

	test("a retried command (the same request id) runs once, and the retry gets its outcome", async () => {
		const { cwd, chat } = await openChat();
		const requestId = rid();
		const args = { command: "echo ran >> count; exit 4", includeInContext: false, requestId };
		const [first, again] = await Promise.all([chat.call("shell", args), chat.call("shell", args)]);
		expect(first).toEqual({ exitCode: 4, cancelled: false });
		expect(again).toEqual(first);
		await waitForState(chat, (s) => s.shell === null && s.entries.some((e) => e.kind === "shell"));
		expect(await chat.call("shell", args)).toEqual(first);
		expect(readFileSync(join(cwd, "count"), "utf8")).toBe("ran\n");
		const state = await waitForState(chat, (s) => s.shell === null);
		expect(state.entries.filter((e) => e.kind === "shell")).toHaveLength(1);
	});

	test("one command at a time: a second is refused with pi's words while the first runs", async () => {
		const { chat } = await openChat();
		const running = chat.call("shell", { command: "echo first; sleep 30", includeInContext: false, requestId: rid() });
		await waitForState(chat, (s) => s.shell?.output.includes("first") === true);
		const refused = await chat
			.call("shell", { command: "echo second", includeInContext: false, requestId: rid() })
			.catch((e) => e);
		expect(refused).toMatchObject({
			code: "conflict",
			message: "A bash command is already running. Press Esc to cancel it first.",
		});
		await chat.call("stop", null);
		expect(await running).toMatchObject({ cancelled: true });
	});
});
