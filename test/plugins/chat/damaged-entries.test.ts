import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { join } from "node:path";
import { type ChatEntry, chatContract } from "../../../src/plugins/chat/contract.ts";
import { toAgentHistory } from "../../../src/plugins/chat/history.ts";
import { toView } from "../../../src/plugins/chat/view.ts";
import { CORRUPT_KIND } from "../../../src/server/store/session-store.ts";
import { chatFixture, requestId } from "../../support/chat-fixture.ts";
import { waitForState } from "../../support/p2-server.ts";

const fixture = chatFixture();

const shown = (entries: readonly ChatEntry[]) =>
	entries.map((e) => (e.kind === "user" ? `user:${e.text}` : e.kind === "error" ? `error:${e.message}` : e.kind));

test("damaged entries are left out of the model's context with a notice, and the session keeps working", async () => {
	const { server, session, chat } = await fixture.openChat();
	server.fake.enqueue({ text: "Answer one." }, { text: "Answer two." });
	await chat.call("send", { text: "first", mode: "steer", requestId: requestId() });
	await waitForState(chat, (s) => s.live === null && s.entries.length === 2);
	await chat.call("send", { text: "second", mode: "steer", requestId: requestId() });
	await waitForState(chat, (s) => s.live === null && s.entries.length === 4);

	// Entry 2 is no longer JSON; entry 4 is JSON of the wrong shape (an answer without its content).
	const raw = new Database(join(server.dataDir, "sessions", `${session}.sqlite`));
	raw.run(`UPDATE entries SET data = '{"kind": "assistant", broken' WHERE seq = 2`);
	raw.run(`UPDATE entries SET data = '{"kind": "assistant", "message": {"role": "assistant"}}' WHERE seq = 4`);
	raw.close();
	// A restart rebuilds the model's context from the stored entries.
	await server.restart();
	const c = await server.connect();
	const reopened = await c.open(chatContract, { session, conversation: "main" });
	expect(shown(reopened.state?.entries ?? [])).toEqual([
		"user:first",
		"error:entry 2 could not be read; the model does not see it",
		"user:second",
		"error:entry 4 could not be read; the model does not see it",
	]);

	server.fake.enqueue({ text: "Answer three." });
	expect(await reopened.call("send", { text: "third", mode: "steer", requestId: requestId() })).toEqual({
		status: "started",
	});
	const state = await waitForState(reopened, (s) => s.live === null && s.entries.length === 6);
	expect(state.entries.at(-1)?.kind).toBe("assistant");
	const sent = JSON.stringify(server.fake.requests.at(-1));
	expect(sent).toContain("first");
	expect(sent).toContain("second");
	expect(sent).toContain("third");
	expect(sent).not.toContain("Answer one.");
});

test("a corrupt row never reaches the model, whatever kind its damaged data claims", () => {
	const rows = [
		{ seq: 1, at: 1, kind: "user", data: { kind: "user", text: "hello" }, author: null },
		{ seq: 2, at: 2, kind: CORRUPT_KIND, data: { kind: "assistant", error: "invalid JSON" }, author: null },
		{ seq: 3, at: 3, kind: "tool", data: { kind: "tool", callId: "x" }, author: null },
		{ seq: 4, at: 4, kind: "user", data: { kind: "assistant", text: "a user row claiming otherwise" }, author: null },
		{ seq: 5, at: 5, kind: "user", data: { kind: "user", text: "again" }, author: null },
	];
	expect(toAgentHistory(rows).map((m) => (m.role === "user" ? m.content : m.role))).toEqual(["hello", "again"]);
});

test("a plugin's entry is shown as the plugin's, never read by the model; one whose data is damaged is a notice", () => {
	const rows = [
		{ seq: 1, at: 1, kind: "user", data: { kind: "user", text: "hello", context: "before it" }, author: null },
		{
			seq: 2,
			at: 2,
			kind: "chat-mode.message",
			data: { kind: "chat-mode.message", data: { text: "chat" } },
			author: null,
		},
		{
			seq: 3,
			at: 3,
			kind: "chat-mode.message",
			data: { kind: "chat-mode.message", data: "not a record" },
			author: null,
		},
		{ seq: 4, at: 4, kind: "chat-mode.message", data: { kind: "other.kind", data: {} }, author: null },
	];
	expect(toAgentHistory(rows).map((m) => (m.role === "user" ? m.content : m.role))).toEqual(["before it\n\nhello"]);
	expect(
		rows.map((r) => toView(r)).map((e) => (e.kind === "plugin" ? `${e.type}:${JSON.stringify(e.data)}` : e.kind)),
	).toEqual(["user", 'chat-mode.message:{"text":"chat"}', "error", "error"]);
});
