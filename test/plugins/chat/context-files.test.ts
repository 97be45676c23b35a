import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { chatContract } from "../../../src/plugins/chat/contract.ts";
import { chatFixture, requestId } from "../../support/chat-fixture.ts";
import { waitForState } from "../../support/p2-server.ts";

const fixture = chatFixture();

describe("the context files the server reads for a session (pi's [Context] at start)", () => {
	test("the chat state names them from the first snapshot, and again when a run reads a changed set", async () => {
		const server = await fixture.start();
		const owner = await server.connect();
		const root = fixture.workDir();
		const project = join(root, "project");
		mkdirSync(project);
		writeFileSync(join(root, "AGENTS.md"), "# outer\n");
		writeFileSync(join(project, "CLAUDE.md"), "# inner\n");
		const { id } = await fixture.session(owner, project);
		const chat = await owner.open(chatContract, { session: id, conversation: "main" });
		const first = await waitForState(chat, (s) => s.contextFiles !== undefined);
		expect(first.contextFiles).toEqual([join(root, "AGENTS.md"), join(project, "CLAUDE.md")]);

		writeFileSync(join(project, "AGENTS.md"), "# preferred over CLAUDE.md\n");
		server.fake.enqueue({ text: "ok" });
		await chat.call("send", { text: "hi", mode: "steer", requestId: requestId() });
		const after = await waitForState(chat, (s) => s.contextFiles?.includes(join(project, "AGENTS.md")) === true);
		expect(after.contextFiles).toEqual([join(root, "AGENTS.md"), join(project, "AGENTS.md")]);
		const request = JSON.stringify(await server.fake.waitForRequest(1));
		expect(request).toContain("preferred over CLAUDE.md");
	});
});
