import { afterAll, beforeAll, describe, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type FakeHome, fakeHome, MAIN } from "../support/fake-home.ts";
import { runInPty } from "../support/pty.ts";

let h: FakeHome;

const model = (id: string, name: string) => ({ id, name, reasoning: true, contextWindow: 128000, maxTokens: 8192 });
const writeModels = (providers: Record<string, unknown>) =>
	writeFileSync(join(h.data, "models.json"), JSON.stringify({ providers }), { mode: 0o600 });
const fakeProvider = (...models: unknown[]) => ({
	baseUrl: h.fake.baseUrl,
	api: "openai-completions",
	apiKey: "test-key",
	models,
});

beforeAll(async () => {
	h = await fakeHome("p2-models-live-e2e-");
});
afterAll(() => h.remove());

describe("the server's models as a pi user expects them", () => {
	test("/new keeps the model and the thinking level in use", async () => {
		writeModels({ fake: fakeProvider(model("fake-model", "Fake Model"), model("second-model", "Second Model")) });
		const run = runInPty([process.execPath, MAIN], { env: h.env, cwd: h.home, cols: 120, rows: 40 });
		const footer = () => run.screen().slice(-2).join("\n");
		try {
			await run.waitFor(() => footer().includes("fake-model • medium"), "the footer with the first model");
			run.type("\x0c");
			await run.waitFor((s) => s.includes("Model Name:"), "the model selector");
			for (const c of "second") run.type(c);
			await run.waitFor((s) => s.includes("Model Name: Second Model"), "the search");
			run.type("\r");
			await run.waitFor(() => footer().includes("second-model • medium"), "the footer on the second model");
			run.type("\x1b[Z");
			await run.waitFor(() => footer().includes("second-model • high"), "Shift+Tab to the next level");
			run.type("/new\r");
			await run.waitFor((s) => s.includes("New session started"), "the new session");
			await run.waitFor(() => footer().includes("second-model • high"), "the model and level kept");
		} finally {
			run.kill();
			await run.exited;
		}
	}, 40_000);
});
