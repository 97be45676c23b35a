import { describe, expect, test } from "bun:test";
import { usageContract } from "../../../src/plugins/usage/contract.ts";
import { chatFixture, requestId } from "../../support/chat-fixture.ts";
import { waitForState } from "../../support/p2-server.ts";
import { waitUntil } from "../../support/wait.ts";

const fixture = chatFixture();

describe("the footer's context size", () => {
	test("an answer that failed or was stopped keeps the last known context size, live and after a reopen", async () => {
		const { server, owner, session, chat } = await fixture.openChat();
		const status = await owner.open(usageContract, { session, conversation: "main" });
		let published = 0;
		status.onChange(() => published++);
		const turn = async (text: string) => {
			await chat.call("send", { text, mode: "steer", requestId: requestId() });
			return waitForState(chat, (s) => s.live === null && s.entries.at(-1)?.kind === "assistant");
		};

		server.fake.enqueue({ text: "measured", usage: { prompt: 5000, completion: 100, cached: 1000 } });
		await turn("first");
		await waitForState(status, (s) => s.contextTokens === 5100);
		expect(status.state?.cacheHitRate).toBe(0.2);

		// Not retried (out of quota): the run ends on the error, and the status is published again for its usage.
		let before = published;
		server.fake.enqueue({ status: 402, error: "insufficient_quota" });
		const failed = await turn("second");
		expect(failed.entries.at(-1)).toMatchObject({ kind: "assistant", stopReason: "error" });
		await waitUntil(() => published > before, "the status published after the failed answer");
		expect(status.state).toMatchObject({ contextTokens: 5100, cacheHitRate: 0.2, contextUnknown: false });

		before = published;
		server.fake.enqueue({ hang: true });
		await chat.call("send", { text: "third", mode: "steer", requestId: requestId() });
		await server.fake.waitForRequest(3);
		await chat.call("stop", null);
		await waitForState(chat, (s) => s.live === null && s.entries.at(-1)?.kind === "assistant");
		await waitUntil(() => published > before, "the status published after the stopped answer");
		expect(status.state).toMatchObject({ contextTokens: 5100, cacheHitRate: 0.2 });

		// Read again from the stored entries (the last view closed first, on the same connection): the same.
		status.close();
		const reopened = await owner.open(usageContract, { session, conversation: "main" });
		expect(reopened.state).toMatchObject({ contextTokens: 5100, cacheHitRate: 0.2 });
	});
});
