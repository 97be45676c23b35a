import { describe, expect, test } from "bun:test";
import type { Api, Model } from "@earendil-works/pi-ai";
import { resolveScope } from "../../../src/plugins/models/scope.ts";

const model = (provider: string, id: string) => ({ provider, id }) as unknown as Model<Api>;
const models = [
	model("anthropic", "claude-sonnet-4-5"),
	model("anthropic", "claude-haiku-4-5"),
	model("openai", "gpt-5"),
	model("proxy", "gpt-5"),
];

describe("scoped models (pi's enabledModels)", () => {
	test("provider/id, ids, globs and a :level suffix, in the patterns' order, each model once", () => {
		const { scoped, problems } = resolveScope(
			["openai/gpt-5:high", "anthropic/*", "*sonnet*:low", "CLAUDE-HAIKU-4-5"],
			models,
		);
		expect(scoped).toEqual([
			{ provider: "openai", id: "gpt-5", thinkingLevel: "high" },
			{ provider: "anthropic", id: "claude-sonnet-4-5", thinkingLevel: null },
			{ provider: "anthropic", id: "claude-haiku-4-5", thinkingLevel: null },
		]);
		expect(problems).toEqual([]);
	});

	test("what matches nothing, or an id two providers have, is reported as pi warns", () => {
		const { scoped, problems } = resolveScope(["gpt-5", "nothing-*", "missing"], models);
		expect(scoped).toEqual([]);
		expect(problems).toEqual([
			'Pattern "gpt-5" matches several providers: openai, proxy. Use provider/id to choose one.',
			'No models match pattern "nothing-*"',
			'No models match pattern "missing"',
		]);
	});
});
