import { describe, expect, test } from "bun:test";
import { mkdirSync, rmSync } from "node:fs";
import { chatContract } from "../../../src/plugins/chat/contract.ts";
import { chatFixture, requestId } from "../../support/chat-fixture.ts";
import { waitForState } from "../../support/p2-server.ts";

const fixture = chatFixture();

describe("a session whose directory was deleted", () => {
	test("opening says which directory is gone; a message and a ! command are refused naming it and /new", async () => {
		const { owner, session, cwd, chat } = await fixture.openChat();
		expect(chat.state?.directoryGone).toBeUndefined();
		rmSync(cwd, { recursive: true, force: true });
		// Another client opening the conversation finds it gone; everyone's state says so.
		const second = await owner.open(chatContract, { session, conversation: "main" });
		expect(second.state?.directoryGone).toBe(cwd);
		await waitForState(chat, (s) => s.directoryGone === cwd);

		const words = `This session's directory no longer exists: ${cwd}. Use /new <path> to start a session in another directory.`;
		const sent = await chat.call("send", { text: "hello", mode: "steer", requestId: requestId() }).catch((e) => e);
		expect(sent).toMatchObject({ code: "unavailable", message: words });
		const ran = await chat
			.call("shell", { command: "ls", includeInContext: true, requestId: requestId() })
			.catch((e) => e);
		expect(ran).toMatchObject({ code: "unavailable", message: words });
		// Nothing was stored or started: the text stays the person's.
		expect(chat.state?.entries).toEqual([]);
		expect(chat.state?.live).toBeNull();

		// The directory is back (restored from a backup): the conversation works again.
		mkdirSync(cwd, { recursive: true });
		expect(await chat.call("shell", { command: "echo back", includeInContext: false, requestId: requestId() })).toEqual(
			{
				exitCode: 0,
				cancelled: false,
			},
		);
		await waitForState(chat, (s) => s.directoryGone === undefined && s.entries.length === 1);
	});
});
