import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { modelsContract } from "../../../src/plugins/models/contract.ts";
import { chatFixture } from "../../support/chat-fixture.ts";
import { waitForState } from "../../support/p2-server.ts";

const fixture = chatFixture();

const provider = (baseUrl: string, ...ids: string[]) => ({
	baseUrl,
	api: "openai-completions",
	apiKey: "test-key",
	models: ids.map((id) => ({ id, reasoning: false, contextWindow: 32000, maxTokens: 4096 })),
});

describe("models.json, live", () => {
	test("an edit applies at once: the catalog lists a new provider, and open conversations follow", async () => {
		const { server, owner, chat } = await fixture.openChat();
		const models = await owner.open(modelsContract, {});
		expect(models.state?.models.map((m) => `${m.provider}/${m.id}`)).toEqual(["fake/fake-model"]);
		const path = join(server.dataDir, "models.json");
		const base = server.fake.baseUrl;

		writeFileSync(
			path,
			JSON.stringify({ providers: { fake: provider(base, "fake-model"), local: provider(base, "tiny") } }),
		);
		const listed = await waitForState(models, (s) => s.models.some((m) => m.provider === "local"));
		expect(listed.models.map((m) => `${m.provider}/${m.id}`)).toEqual(["fake/fake-model", "local/tiny"]);
		expect(chat.state?.model?.id).toBe("fake-model");

		// The conversation's model is gone: it shows, and will use, the one it resolves to now.
		writeFileSync(path, JSON.stringify({ providers: { local: provider(base, "tiny") } }));
		const moved = await waitForState(chat, (s) => s.model?.provider === "local");
		expect(moved.model).toMatchObject({ id: "tiny", contextWindow: 32000, reasoning: false });
		expect(moved.thinkingLevel).toBe("off");

		// A broken file is a problem named with its path; what it had before is gone, as at start.
		writeFileSync(path, "{ not json");
		const broken = await waitForState(models, (s) => s.problems.length > 0);
		expect(broken.problems[0]).toStartWith(`models.json (${path}): not valid JSON`);
		expect(broken.models).toEqual([]);
		const none = await waitForState(chat, (s) => s.model === null);
		expect(none.thinkingLevel).toBe("off");
	});
});
