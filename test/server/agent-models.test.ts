import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Api, AssistantMessage, Model } from "@earendil-works/pi-ai";
import { normalizeContext } from "@earendil-works/pi-ai/utils/transcript";
import { loadModelCatalog, resolveConfigValue } from "../../src/server/agent/models.ts";
import { type FakeOpenAI, startFakeOpenAI, writeFakeModelsJson } from "../support/fake-openai.ts";

let fake: FakeOpenAI;
let dataDir: string;
beforeAll(async () => {
	fake = await startFakeOpenAI();
});
afterAll(() => fake.stop());
beforeEach(() => {
	dataDir = mkdtempSync(join(tmpdir(), "p2-models-"));
});

const writeModels = (value: unknown) => writeFileSync(join(dataDir, "models.json"), JSON.stringify(value));

async function finalMessage(model: Model<Api>, streamFn: Awaited<ReturnType<typeof loadModelCatalog>>["streamFn"]) {
	const events: string[] = [];
	const stream = await streamFn(
		model,
		normalizeContext({ messages: [{ role: "user", content: "hi", timestamp: Date.now() }] }),
		{},
	);
	for await (const event of stream) events.push(event.type);
	return { events, message: (await stream.result()) as AssistantMessage };
}

describe("model catalog", () => {
	test("models.json providers are listed and usable with env-resolved keys", async () => {
		writeModels({
			providers: {
				local: {
					baseUrl: fake.baseUrl,
					api: "openai-completions",
					apiKey: "$LOCAL_KEY",
					models: [{ id: "m1" }, { id: "m2", name: "Model Two", reasoning: true }],
				},
			},
		});
		const catalog = await loadModelCatalog({ dataDir, env: { LOCAL_KEY: "k" } });
		expect(catalog.usable().map((m) => `${m.provider}/${m.id}:${m.name}`)).toEqual([
			"local/m1:m1",
			"local/m2:Model Two",
		]);
		expect(catalog.find("local", "m2")?.reasoning).toBe(true);
		expect(catalog.problems()).toEqual([]);
	});

	test("a bad models.json is reported, never thrown, and its valid providers still load", async () => {
		writeModels({
			providers: {
				good: { baseUrl: fake.baseUrl, api: "openai-completions", models: [{ id: "ok" }] },
				noApi: { baseUrl: fake.baseUrl, models: [{ id: "x" }] },
				oddApi: { baseUrl: fake.baseUrl, api: "carrier-pigeon", models: [{ id: "y" }] },
				cmd: { baseUrl: fake.baseUrl, api: "openai-completions", apiKey: "!cat ~/.secret", models: [{ id: "z" }] },
				broken: 42,
			},
		});
		const catalog = await loadModelCatalog({ dataDir, env: {} });
		expect(catalog.usable().map((m) => `${m.provider}/${m.id}`)).toEqual(["cmd/z", "good/ok"]);
		const problems = catalog.problems().join("\n");
		expect(problems).toContain('providers.noApi.models[0]: "api" is required');
		expect(problems).toContain('api "carrier-pigeon" is not supported');
		expect(problems).toContain("providers.cmd.apiKey: commands are not run by the server");
		expect(problems).toContain("providers.broken");

		writeFileSync(join(dataDir, "models.json"), "{ not json");
		await catalog.reload();
		expect(catalog.usable()).toEqual([]);
		expect(catalog.problems()[0]).toStartWith(`models.json (${join(dataDir, "models.json")}): not valid JSON`);
	});

	test("each problem names the file with its path and says what is wrong where: a line, emptiness, a place", async () => {
		const path = join(dataDir, "models.json");
		const label = `models.json (${path})`;
		writeFileSync(path, '{\n  "providers": {\n    "x": ,\n  }\n}\n');
		const catalog = await loadModelCatalog({ dataDir, env: {} });
		expect(catalog.problems()).toEqual([`${label}: not valid JSON at line 3, column 10 (unexpected ",")`]);
		writeFileSync(path, "");
		await catalog.reload();
		expect(catalog.problems()).toEqual([`${label}: is empty`]);
		writeModels({
			providers: {
				x: { baseUrl: fake.baseUrl, api: "openai-completions", models: [{ id: 7 }, { id: "fine" }] },
				y: { models: "none" },
			},
		});
		await catalog.reload();
		expect(catalog.problems()).toEqual([
			`${label}: providers.x.models[0].id must be a string (was a number)`,
			`${label}: providers.y.models must be an array (was string)`,
		]);
		expect(catalog.usable().map((m) => `${m.provider}/${m.id}`)).toEqual(["x/fine"]);
		writeModels({ models: [] });
		await catalog.reload();
		expect(catalog.problems()).toEqual([`${label}: providers must be an object (was missing)`]);
	});

	test("a built-in provider is usable exactly when its credential is in the environment", async () => {
		const without = await loadModelCatalog({ dataDir, env: {} });
		expect(without.usable().some((m) => m.provider === "anthropic")).toBe(false);
		const withKey = await loadModelCatalog({ dataDir, env: { ANTHROPIC_API_KEY: "sk-test" } });
		const anthropic = withKey.usable().filter((m) => m.provider === "anthropic");
		expect(anthropic.length).toBeGreaterThan(0);
		expect(withKey.usable().some((m) => m.provider === "openai")).toBe(false);
	});

	test("config values resolve like pi's, and commands never run", () => {
		expect(resolveConfigValue("$A", { A: "1" })).toBe("1");
		// biome-ignore lint/suspicious/noTemplateCurlyInString: pi's config syntax is the string under test.
		expect(resolveConfigValue("x-${A}-$$", { A: "1" })).toBe("x-1-$");
		expect(resolveConfigValue("$MISSING", {})).toBeUndefined();
		expect(resolveConfigValue("!echo hi", {})).toBeUndefined();
		expect(resolveConfigValue("literal", {})).toBe("literal");
	});

	test("streamFn streams text, thinking, a tool call and usage from the endpoint", async () => {
		writeFakeModelsJson(dataDir, fake.baseUrl);
		const catalog = await loadModelCatalog({ dataDir, env: {} });
		const model = catalog.find("fake", "fake-model")!;
		fake.enqueue({
			thinking: "let me see",
			text: "hello there",
			toolCalls: [{ id: "c1", name: "read", args: { path: "a.txt" } }],
			usage: { prompt: 11, completion: 7 },
		});
		const { events, message } = await finalMessage(model, catalog.streamFn);
		expect(events).toContain("thinking_delta");
		expect(events).toContain("text_delta");
		expect(events.at(-1)).toBe("done");
		expect(message.content.map((c) => c.type)).toEqual(["thinking", "text", "toolCall"]);
		expect(message.content[2]).toMatchObject({ type: "toolCall", name: "read", arguments: { path: "a.txt" } });
		expect(message.usage.input).toBe(11);
		expect(message.usage.output).toBe(7);
		const request = fake.requests.at(-1) as { model: string };
		expect(request.model).toBe("fake-model");
	});

	test("an HTTP error ends the stream with an error message, not a throw", async () => {
		writeFakeModelsJson(dataDir, fake.baseUrl);
		const catalog = await loadModelCatalog({ dataDir, env: {} });
		fake.enqueue({ status: 500, error: "upstream exploded" });
		const { message } = await finalMessage(catalog.find("fake", "fake-model")!, catalog.streamFn);
		expect(message.stopReason).toBe("error");
		expect(message.errorMessage).toContain("500");
	});
});
