import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { UserMessage } from "@earendil-works/pi-ai";
import { ConversationEngine } from "../../src/server/agent/conversation-engine.ts";
import { loadModelCatalog } from "../../src/server/agent/models.ts";
import { type FakeOpenAI, startFakeOpenAI, writeFakeModelsJson } from "../support/fake-openai.ts";

let fake: FakeOpenAI;
let dataDir: string;
beforeAll(async () => {
	fake = await startFakeOpenAI();
	dataDir = mkdtempSync(join(tmpdir(), "p2-engine-"));
	writeFakeModelsJson(dataDir, fake.baseUrl);
});
afterAll(async () => {
	await fake.stop();
	rmSync(dataDir, { recursive: true, force: true });
});

const user = (text: string): UserMessage => ({ role: "user", content: text, timestamp: Date.now() });

/** An engine whose preparation (a remote machine's instructions being read) ends when the test says. */
async function preparingEngine() {
	const catalog = await loadModelCatalog({ dataDir, env: {} });
	let finish: (prompt: string) => void = () => {};
	let started: () => void = () => {};
	const preparing = new Promise<void>((resolve) => {
		started = resolve;
	});
	const engine = new ConversationEngine({
		model: catalog.find("fake", "fake-model")!,
		thinkingLevel: "off",
		systemPrompt: "before",
		tools: [],
		history: [],
		streamFn: catalog.streamFn,
		retry: { enabled: false, maxRetries: 0, baseDelayMs: 1 },
		sessionId: "s",
		onEvent: () => {},
		prepare: () => {
			started();
			return new Promise((resolve) => {
				finish = resolve;
			});
		},
	});
	return { engine, preparing, finish: (prompt: string) => finish(prompt) };
}

/** The texts of the person's messages in a request the model received. */
function userTexts(request: unknown): string[] {
	const messages = (request as { messages: { role: string; content: unknown }[] }).messages;
	return messages
		.filter((m) => m.role === "user")
		.map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)));
}

describe("a run whose agent is still being prepared", () => {
	test("Escape meanwhile ends it before anything reaches the model", async () => {
		const before = fake.requests.length;
		const { engine, preparing, finish } = await preparingEngine();
		const outcome = engine.run(user("first"));
		await preparing;
		engine.abort();
		finish("after");
		expect(await outcome).toBe("aborted");
		expect(fake.requests.length).toBe(before);
	});

	test("a follow-up sent meanwhile reaches the model after the first answer, under the prepared prompt", async () => {
		const before = fake.requests.length;
		fake.enqueue({ text: "one" }, { text: "two" });
		const { engine, preparing, finish } = await preparingEngine();
		const outcome = engine.run(user("first"));
		await preparing;
		engine.followUp(user("second"));
		finish("after");
		expect(await outcome).toBe("done");
		const second = await fake.waitForRequest(before + 2);
		expect(userTexts(second)).toEqual(["first", "second"]);
		const system = (second as { messages: { role: string; content: unknown }[] }).messages[0];
		expect(system).toMatchObject({ role: "system", content: "after" });
	});
});
