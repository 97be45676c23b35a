import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeHomeForFile, MAIN } from "../support/fake-home.ts";
import { runInPty } from "../support/pty.ts";

const h = fakeHomeForFile("p2-compact-e2e-");

describe("/compact and /new-context end to end", () => {
	test("pi's notice for a session too small to compact", async () => {
		const cwd = join(h.home, "small");
		mkdirSync(cwd);
		const run = runInPty([process.execPath, MAIN], { env: h.env, cwd, cols: 100, rows: 40 });
		try {
			await run.waitFor((s) => s.includes("fake-model"), "the chat");
			h.fake.enqueue({ text: "Hello back." });
			run.type("hello\r");
			await run.waitFor((s) => s.includes("Hello back."), "the answer");
			run.type("/compact");
			await run.waitFor((s) => s.includes("→ compact"), "the command in the list");
			run.type("\r");
			await run.waitFor(
				(s) => s.includes("Error: Compaction failed: Nothing to compact (session too small)"),
				"pi's notice",
			);
			expect(run.screen().join("\n")).toContain("Hello back.");
		} finally {
			run.kill();
			await run.exited;
		}
	}, 40_000);

	test("pi's compaction block replaces what it summarized, Ctrl+O shows the summary, and a fresh context is marked", async () => {
		// pi's setting: keep nothing word for word, so this short conversation compacts.
		writeFileSync(join(h.data, "settings.json"), JSON.stringify({ compaction: { keepRecentTokens: 0 } }));
		const run = runInPty([process.execPath, MAIN], { env: h.env, cwd: h.home, cols: 100, rows: 40 });
		try {
			await run.waitFor((s) => s.includes("fake-model"), "the chat");
			h.fake.enqueue({ text: "The answer is 42.", usage: { prompt: 2000, completion: 100 } });
			run.type("what is the answer\r");
			await run.waitFor((s) => s.includes("The answer is 42."), "the answer");
			h.fake.enqueue({ text: "## Goal\n- The person wanted the answer; it is 42.", chunks: 2, chunkDelayMs: 300 });
			run.type("/compact");
			await run.waitFor((s) => s.includes("→ compact"), "/compact in the command list");
			run.type("\r");
			await run.waitFor((s) => s.includes("Compacting context..."), "the compaction indicator");
			await run.waitFor((s) => s.includes("[compaction]"), "the compaction block");
			await run.waitFor((s) => s.includes("Compacted from 2,100 tokens (ctrl+o to expand)"), "the collapsed line");
			// As in pi, what the summary replaced is no longer shown.
			await run.waitFor((s) => !s.includes("The answer is 42."), "the summarized answer gone");
			run.type("\x0f");
			await run.waitFor((s) => s.includes("it is 42."), "the expanded summary");
			run.type("\x0f");
			run.type("/new-context we settled on 42");
			await run.waitFor(
				(s) => /^\/new-context we settled on 42\s*$/m.test(s) && !s.includes("→ "),
				"the command typed, no completion list open",
			);
			run.type("\r");
			await run.waitFor((s) => s.includes("new context: the model does not see what is above"), "the marker");
			expect(run.screen().join("\n")).toContain("Handoff: we settled on 42");
		} finally {
			run.kill();
			await run.exited;
		}
	}, 40_000);
});
