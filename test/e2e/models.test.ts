import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type FakeHome, fakeHome, MAIN } from "../support/fake-home.ts";
import { runInPty } from "../support/pty.ts";

let h: FakeHome;

beforeAll(async () => {
	h = await fakeHome("p2-models-e2e-");
	// Two models on the fake provider; the second is the one switched to.
	const models = {
		providers: {
			fake: {
				baseUrl: h.fake.baseUrl,
				api: "openai-completions",
				apiKey: "test-key",
				models: [
					{ id: "fake-model", name: "Fake Model", reasoning: true, contextWindow: 128000, maxTokens: 8192 },
					{ id: "second-model", name: "Second Model", reasoning: true, contextWindow: 64000, maxTokens: 8192 },
				],
			},
		},
	};
	writeFileSync(join(h.data, "models.json"), JSON.stringify(models), { mode: 0o600 });
});
afterAll(() => h.remove());

const lastRequest = () => h.fake.requests.at(-1) as { model: string; reasoning_effort?: string };

describe("models and thinking end to end", () => {
	test("Ctrl+L and the selector, /thinking, Ctrl+P: the footer and the next request change; Ctrl+S saves the default", async () => {
		const run = runInPty([process.execPath, MAIN], { env: h.env, cwd: h.home, cols: 120, rows: 40 });
		try {
			await run.waitFor((s) => s.includes("fake-model • medium"), "the footer with the default model");

			run.type("\x0c");
			await run.waitFor((s) => s.includes("Model Name:"), "the model selector");
			for (const c of "second") run.type(c);
			await run.waitFor((s) => s.includes("Model Name: Second Model"), "the search");
			run.type("\r");
			// The footer follows the session's state, which may come before the notice: both are waited for.
			await run.waitFor(
				(s) => s.includes("second-model • medium") && s.includes("Model: second-model"),
				"the footer on the new model, and the notice",
			);

			// As in pi, Enter on the argument menu takes the completion; the next Enter runs the command.
			run.type("/thinking high");
			await run.waitFor((s) => s.includes("Deep reasoning"), "the argument completion");
			run.type("\r");
			await run.waitFor(
				(s) => /^\/thinking high\s*$/m.test(s) && !s.includes("Deep reasoning"),
				"the completion taken",
			);
			run.type("\r");
			await run.waitFor((s) => s.includes("second-model • high"), "the footer with the level");
			h.fake.enqueue({ text: "From the second model." });
			run.type("which model?\r");
			await run.waitFor((s) => s.includes("From the second model."), "the answer");
			expect(lastRequest().model).toBe("second-model");
			expect(JSON.stringify(lastRequest())).toContain("high");

			run.type("\x10");
			await run.waitFor((s) => s.includes("Switched to Fake Model"), "Ctrl+P to the next model");
			await run.waitFor((s) => s.includes("fake-model •"), "the footer after cycling");
			h.fake.enqueue({ text: "From the first model." });
			run.type("and now?\r");
			await run.waitFor((s) => s.includes("From the first model."), "the answer");
			expect(lastRequest().model).toBe("fake-model");

			run.type("/model\r");
			await run.waitFor((s) => s.includes("Model Name:"), "the selector again");
			run.type("\x1b[B");
			await run.waitFor((s) => /→ .*second-model/.test(s), "the second model selected");
			run.type("\x13");
			await run.waitFor((s) => s.includes("Default model: fake/second-model"), "Ctrl+S");
			const settings = JSON.parse(readFileSync(join(h.data, "settings.json"), "utf8"));
			expect(settings.defaultModel).toEqual({ provider: "fake", id: "second-model" });
		} finally {
			run.kill();
			await run.exited;
		}
	}, 40_000);
});
