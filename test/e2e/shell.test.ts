import { describe, expect, test } from "bun:test";
import { fakeHomeForFile, MAIN } from "../support/fake-home.ts";
import { runInPty } from "../support/pty.ts";

const h = fakeHomeForFile("p2-shell-e2e-");

describe("@ files and Tab paths end to end", () => {
	test("@ finds a file of the session's directory; Tab completes a path; the file is named in the message", async () => {
		const { mkdirSync, writeFileSync } = await import("node:fs");
		const { join } = await import("node:path");
		mkdirSync(join(h.home, "proj", "src"), { recursive: true });
		writeFileSync(join(h.home, "proj", "src", "parser.ts"), "export {};\n");
		writeFileSync(join(h.home, "proj", "notes.md"), "notes\n");
		const run = runInPty([process.execPath, MAIN], { env: h.env, cwd: join(h.home, "proj"), cols: 100, rows: 30 });
		try {
			await run.waitFor((s) => s.includes("fake-model"), "the chat");
			run.type("look at @pars");
			await run.waitFor((s) => s.includes("src/parser.ts"), "the @ suggestion");
			run.type("\t");
			await run.waitFor((s) => /look at @src\/parser\.ts\s*$/m.test(s), "the @ path in the editor");
			run.type("\x15");
			run.type("cat no");
			await run.waitFor((s) => /^cat no\s*$/m.test(s), "the path typed");
			run.type("\t");
			await run.waitFor((s) => /^cat notes\.md\s*$/m.test(s), "Tab completed the path");
			run.type("\x15");
		} finally {
			run.kill();
			await run.exited;
		}
	}, 40_000);
});

describe("! commands end to end", () => {
	test("!cmd shows pi's block with the output; Escape cancels a long one; the model reads the first, not !!", async () => {
		const run = runInPty([process.execPath, MAIN], { env: h.env, cwd: h.home, cols: 100, rows: 40 });
		try {
			await run.waitFor((s) => s.includes("/ commands · ! bash") && s.includes("fake-model"), "pi's hint line");
			// pi: Esc in bash mode clears the command not yet run.
			run.type("!not-this");
			await run.waitFor((s) => /^!not-this\s*$/m.test(s), "bash mode in the editor");
			run.type("\x1b");
			await run.waitFor((s) => !s.includes("!not-this"), "the editor cleared");
			// Each command's block is shown while it runs: the next one is typed once it has ended, and the Escape
			// once the long one's own block runs (an earlier block's "Running" is not it).
			const ended = (s: string) => !s.includes("Running...");
			run.type("!echo hello-from-bash\r");
			await run.waitFor(
				(s) => s.includes("$ echo hello-from-bash") && s.includes(" hello-from-bash") && ended(s),
				"the block",
			);
			run.type("!!echo kept-private\r");
			await run.waitFor((s) => s.includes("$ echo kept-private") && ended(s), "the !! block");
			run.type("!sleep 30\r");
			await run.waitFor(
				(s) => s.includes("$ sleep 30") && s.includes("Running... (escape to cancel)"),
				"the running command",
			);
			run.type("\x1b");
			await run.waitFor((s) => s.includes("(cancelled)"), "the cancelled command");
			h.fake.enqueue({ text: "Noted." });
			run.type("what ran?\r");
			await run.waitFor((s) => s.includes("Noted."), "the answer");
			const sent = JSON.stringify(h.fake.requests.at(-1));
			expect(sent).toContain("hello-from-bash");
			expect(sent).not.toContain("kept-private");
		} finally {
			run.kill();
			await run.exited;
		}
	}, 40_000);
});
