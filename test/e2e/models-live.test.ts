import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeHomeForFile, MAIN } from "../support/fake-home.ts";
import { runInPty } from "../support/pty.ts";

const h = fakeHomeForFile("p2-models-live-e2e-");

const provider = (...ids: string[]) => ({
	baseUrl: h.fake.baseUrl,
	api: "openai-completions",
	apiKey: "test-key",
	models: ids.map((id) => ({ id, reasoning: true, contextWindow: 64000, maxTokens: 4096 })),
});

describe("the server's models.json, edited while p2 runs", () => {
	test("the /model list and the footer follow the file at once", async () => {
		const run = runInPty([process.execPath, MAIN], { env: h.env, cwd: h.home, cols: 120, rows: 40 });
		const footer = () => run.screen().slice(-2).join("\n");
		try {
			await run.waitFor(() => footer().includes("fake-model • medium"), "the footer");
			// The open session's model goes, a new provider comes: the footer follows at once, then /model lists it.
			writeFileSync(join(h.data, "models.json"), JSON.stringify({ providers: { local: provider("tiny-model") } }));
			await run.waitFor(() => footer().includes("tiny-model • medium"), "the footer on the new provider's model");
			run.type("\x0c");
			await run.waitFor((s) => s.includes("Model Name:") && s.includes("tiny-model"), "the new model in /model");
			expect(run.screen().join("\n")).not.toContain("fake-model");
			run.type("\x1b");
			await run.waitFor((s) => !s.includes("Model Name:"), "the selector closed");

			// A broken file is named with its path and line as soon as it is saved (the owner's UI).
			writeFileSync(join(h.data, "models.json"), '{\n  "providers": {,\n');
			const problem = `Error: models.json (${join(h.data, "models.json")}): not valid JSON at line 2`;
			await run.waitFor((s) => s.replace(/\s+/g, " ").includes(problem), "the problem in the owner's UI");
		} finally {
			run.kill();
			await run.exited;
		}
	}, 40_000);
});
