import { describe, expect, test } from "bun:test";
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
		expect(await chat.call("shell", { command: "pwd; echo from-bash; exit 3", includeInContext: true })).toEqual({
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
		await chat.call("shell", { command: "echo private-output", includeInContext: false });
		server.fake.enqueue({ text: "ok" });
		await chat.call("send", { text: "hello", mode: "steer", requestId: rid() });
		await waitForState(chat, (s) => s.live === null && s.entries.at(-1)?.kind === "assistant");
		expect(sentText(server.fake.requests[0])).not.toContain("private-output");
	});

	test("output streams to everyone while it runs; Escape (stop) cancels it; nothing else runs meanwhile", async () => {
		const { chat } = await openChat();
		const running = chat.call("shell", { command: "echo started; sleep 30", includeInContext: true });
		await waitForState(chat, (s) => s.shell?.output.includes("started") === true);
		const refused = await chat.call("send", { text: "now", mode: "steer", requestId: rid() }).catch((e) => e);
		expect(refused).toMatchObject({ code: "conflict" });
		expect(await chat.call("stop", null)).toMatchObject({ stopped: true });
		expect(await running).toEqual({ exitCode: null, cancelled: true });
		const state = await waitForState(chat, (s) => s.shell === null);
		expect(state.entries.at(-1)).toMatchObject({ kind: "shell", cancelled: true, output: "started" });
	});
});
