import { describe, expect, test } from "bun:test";
import { chatContract } from "../../../src/plugins/chat/contract.ts";
import { sessionsContract } from "../../../src/plugins/sessions/contract.ts";
import { chatFixture, requestId } from "../../support/chat-fixture.ts";
import { waitForState } from "../../support/p2-server.ts";

const fixture = chatFixture();

describe("the session catalog's last activity", () => {
	test("archiving and restoring (or renaming, pinning) leave a session's last activity as it was", async () => {
		const server = await fixture.start();
		const owner = await server.connect();
		const sessions = await owner.open(sessionsContract, {});
		const old = await sessions.call("create", { cwd: fixture.workDir() });
		const chat = await owner.open(chatContract, { session: old.id, conversation: "main" });
		await chat.call("send", { text: "hello", mode: "steer", requestId: requestId() });
		await waitForState(chat, (s) => s.live === null && s.entries.some((e) => e.kind === "assistant"));
		const newer = await sessions.call("create", { cwd: fixture.workDir() });
		const active = sessions.state?.sessions.find((s) => s.id === old.id)?.updatedAt ?? 0;
		expect(active).toBeLessThan(newer.updatedAt);

		const archived = await sessions.call("archive", { id: old.id });
		expect(archived.archived).toBe(true);
		const restored = await sessions.call("restore", { id: old.id });
		const renamed = await sessions.call("rename", { id: old.id, title: "kept old" });
		const pinned = await sessions.call("pin", { id: old.id, pinned: true });
		for (const row of [archived, restored, renamed, pinned]) expect(row.updatedAt).toBe(active);
		const order = (await waitForState(sessions, (s) => s.sessions.some((r) => r.title === "kept old"))).sessions;
		expect(order.find((r) => r.id === old.id)?.updatedAt).toBe(active);
	});
});
