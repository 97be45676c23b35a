import { describe, expect, test } from "bun:test";
import { chatContract } from "../../../src/plugins/chat/contract.ts";
import { sessionsContract } from "../../../src/plugins/sessions/contract.ts";
import { chatFixture, requestId } from "../../support/chat-fixture.ts";
import { waitForState } from "../../support/p2-server.ts";

const fixture = chatFixture();

describe("/fork and /clone", () => {
	test("a child session with the entries before the chosen message; the catalog shows it with its parent", async () => {
		const { server, owner, session, chat } = await fixture.openChat();
		for (const [text, answer] of [
			["first question", "first answer"],
			["second question", "second answer"],
		]) {
			server.fake.enqueue({ text: answer });
			await chat.call("send", { text: text!, mode: "steer", requestId: requestId() });
			await waitForState(chat, (s) => s.live === null && s.entries.at(-1)?.kind === "assistant");
		}
		const second = chat.state!.entries.find((e) => e.kind === "user" && e.text === "second question")!;
		const sessions = await owner.open(sessionsContract, {});
		const { session: child } = await chat.call("fork", { beforeSeq: second.seq });
		const row = await waitForState(sessions, (s) => s.sessions.some((r) => r.id === child));
		expect(row.sessions.find((r) => r.id === child)).toMatchObject({ parent: session });
		const forked = await owner.open(chatContract, { session: child, conversation: "main" });
		expect(forked.state!.entries.map((e) => (e.kind === "user" ? e.text : e.kind))).toEqual([
			"first question",
			"assistant",
		]);
		// The fork's next message sees only what was copied.
		server.fake.enqueue({ text: "ok" });
		await forked.call("send", { text: "another way", mode: "steer", requestId: requestId() });
		await waitForState(forked, (s) => s.live === null && s.entries.at(-1)?.kind === "assistant");
		const sent = JSON.stringify(server.fake.requests.at(-1));
		expect(sent).toContain("first question");
		expect(sent).not.toContain("second question");

		const { session: clone } = await chat.call("fork", {});
		const copy = await owner.open(chatContract, { session: clone, conversation: "main" });
		expect(copy.state!.entries.filter((e) => e.kind === "user")).toHaveLength(2);
		await expect(chat.call("fork", { beforeSeq: 999_999 })).rejects.toMatchObject({ code: "not_found" });
		// pi's --fork: the fork lives in another directory.
		const elsewhere = fixture.workDir("p2-fork-here-");
		const { session: moved } = await chat.call("fork", { cwd: elsewhere });
		const listed = await waitForState(sessions, (s) => s.sessions.some((r) => r.id === moved));
		expect(listed.sessions.find((r) => r.id === moved)?.cwd).toBe(elsewhere);
		await expect(chat.call("fork", { cwd: "/no/such/dir" })).rejects.toMatchObject({ code: "bad_args" });
	});
});
