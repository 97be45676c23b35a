/** pi's command line end to end: `p2 @file message`, `--models`, `--verbose`. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type FakeHome, fakeHome, MAIN } from "../support/fake-home.ts";
import { runInPty } from "../support/pty.ts";

let h: FakeHome;

beforeAll(async () => {
	h = await fakeHome("p2-cli-e2e-");
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

describe("pi's command line", () => {
	test("p2 @file message: the launcher asks, the file goes with the first message, whose words are the draft", async () => {
		writeFileSync(join(h.home, "notes.md"), "the notes say hello");
		const run = runInPty([process.execPath, MAIN, "@notes.md", "summarize", "these"], {
			env: h.env,
			cwd: h.home,
			cols: 120,
			rows: 40,
		});
		try {
			await run.waitFor((s) => s.includes("Send a file from this computer to the server"), "the launcher's question");
			expect(run.screen().join("\n")).toContain(`File: ${join(h.home, "notes.md")}`);
			await run.waitFor((s) => s.includes("Enter or y: confirm"), "the question ready to confirm");
			run.type("y");
			await run.waitFor((s) => s.includes("[notes.md 19 B]") && s.includes("summarize these"), "the chip and draft");
			h.fake.enqueue({ text: "Summarized." });
			run.type("\r");
			await run.waitFor((s) => s.includes("Summarized."), "the answer");
			const sent = JSON.stringify(h.fake.requests.at(-1));
			expect(sent).toContain("the notes say hello");
			expect(sent).toContain("summarize these");
		} finally {
			run.kill();
			await run.exited;
		}
	}, 40_000);

	test("--models: pi's scope line in the header, a new session starts on the scope's first model, Ctrl+P stays in it, a pattern matching nothing is said", async () => {
		const run = runInPty([process.execPath, MAIN, "--models", "fake/second-model,nothing*"], {
			env: h.env,
			cwd: h.home,
			cols: 120,
			rows: 40,
		});
		try {
			await run.waitFor((s) => s.includes("second-model •"), "the footer on the scope's model");
			await run.waitFor((s) => s.includes('No models match pattern "nothing*"'), "pi's warning");
			await run.waitFor((s) => s.includes("Model scope: second-model (Ctrl+P to cycle)"), "pi's scope line");
			run.type("\x10");
			await run.waitFor((s) => s.includes("Only one model in scope"), "Ctrl+P within the run's scope");
			expect(run.screen().join("\n")).not.toContain("Switched to");
			h.fake.enqueue({ text: "From the scoped model." });
			run.type("hi\r");
			await run.waitFor((s) => s.includes("From the scoped model."), "the answer");
			expect((h.fake.requests.at(-1) as { model: string }).model).toBe("second-model");
		} finally {
			run.kill();
			await run.exited;
		}
	}, 40_000);

	test("--verbose: the header and the loaded resources show expanded, even with quietStartup", async () => {
		const project = join(h.home, "proj");
		mkdirSync(project, { recursive: true });
		writeFileSync(join(project, "AGENTS.md"), "# Rules\n");
		const agent = join(h.home, ".pi", "agent");
		mkdirSync(agent, { recursive: true });
		writeFileSync(join(agent, "settings.json"), JSON.stringify({ quietStartup: true }));
		const run = runInPty([process.execPath, MAIN, "--verbose"], { env: h.env, cwd: project, cols: 120, rows: 50 });
		try {
			await run.waitFor((s) => /^\[Context\]\n {2}~\/proj\/AGENTS\.md$/m.test(s), "the resources, expanded");
			await run.waitFor((s) => s.includes("to cycle thinking level"), "the expanded header's hints");
		} finally {
			run.kill();
			await run.exited;
		}
	}, 40_000);
});
