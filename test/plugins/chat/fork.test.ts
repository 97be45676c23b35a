import { describe, expect, test } from "bun:test";
import { artifactsContract } from "../../../src/plugins/artifacts/contract.ts";
import { chatContract } from "../../../src/plugins/chat/contract.ts";
import { sessionsContract } from "../../../src/plugins/sessions/contract.ts";
import { conversationsContract } from "../../../src/plugins/subagents/contract.ts";
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

	test("/clone carries the subagents' conversations, the artifacts and the sent files; the clone changes alone", async () => {
		const { server, owner, session, chat } = await fixture.openChat();
		server.fake.enqueue(
			{
				toolCalls: [
					{ name: "artifact", args: { name: "plan.md", content: "# Plan\n" } },
					{ name: "subagent", args: { task: "Count the files" } },
				],
			},
			{ text: "Child answer." },
			{ text: "Done." },
		);
		await chat.call("send", { text: "plan and delegate", mode: "steer", requestId: requestId() });
		await waitForState(chat, (s) => s.live === null && s.entries.filter((e) => e.kind === "tool").length === 2);
		const files = server.server.ctx.services.get("sessionFiles");
		const sent = files?.offer(session, "notes.txt", new TextEncoder().encode("sent notes"));

		const { session: clone } = await chat.call("fork", {});
		const [before, after] = [
			await owner.open(conversationsContract, { session }),
			await owner.open(conversationsContract, { session: clone }),
		];
		const child = (await waitForState(before, (s) => s.conversations.length === 2)).conversations[1]!;
		const copied = await waitForState(after, (s) => s.conversations.length === 2);
		expect(copied.conversations[1]).toEqual(child);
		const childChat = await owner.open(chatContract, { session: clone, conversation: child.id });
		const childEntries = await waitForState(childChat, (s) => s.entries.length > 0);
		expect(childEntries.entries.map((e) => (e.kind === "user" ? e.text : e.kind))).toEqual([
			"Count the files",
			"assistant",
		]);

		const artifacts = await owner.open(artifactsContract, { session: clone });
		expect((await waitForState(artifacts, (s) => s.artifacts.length === 1)).artifacts[0]).toMatchObject({
			name: "plan.md",
			version: 1,
		});
		const cloneChat = await owner.open(chatContract, { session: clone, conversation: "main" });
		const listed = await cloneChat.call("files", null);
		expect(listed.files).toEqual([expect.objectContaining({ id: sent?.id, name: "notes.txt", agent: true })]);
		expect(await cloneChat.call("preview", { id: sent!.id })).toEqual({ text: "sent notes", truncated: false });

		// The clone goes on alone: a new version and a new file there leave the original as it was.
		server.fake.enqueue(
			{ toolCalls: [{ name: "artifact", args: { name: "plan.md", content: "# Plan v2\n" } }] },
			{ text: "Saved." },
		);
		await cloneChat.call("send", { text: "revise", mode: "steer", requestId: requestId() });
		await waitForState(cloneChat, (s) => s.live === null && s.entries.filter((e) => e.kind === "tool").length === 3);
		files?.offer(clone, "more.txt", new TextEncoder().encode("more"));
		const original = await owner.open(artifactsContract, { session });
		expect(original.state?.artifacts).toMatchObject([{ name: "plan.md", version: 1 }]);
		expect((await chat.call("files", null)).files.map((f) => f.name)).toEqual(["notes.txt"]);
		expect((await cloneChat.call("files", null)).files.map((f) => f.name).sort()).toEqual(["more.txt", "notes.txt"]);
		expect(chat.state!.entries.filter((e) => e.kind === "user").map((e) => e.kind === "user" && e.text)).toEqual([
			"plan and delegate",
		]);
	});

	test("/clone waits for what runs: it is refused while the agent works", async () => {
		const { server, chat } = await fixture.openChat();
		server.fake.enqueue({ hang: true });
		await chat.call("send", { text: "think", mode: "steer", requestId: requestId() });
		await waitForState(chat, (s) => s.live !== null);
		await expect(chat.call("fork", {})).rejects.toMatchObject({
			code: "conflict",
			message: "Stop the current run before cloning",
		});
		await chat.call("stop", null);
	});
});
