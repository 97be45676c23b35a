import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type FakeHome, fakeHome, MAIN } from "../support/fake-home.ts";
import { runInPty } from "../support/pty.ts";

let h: FakeHome;
beforeAll(async () => {
	h = await fakeHome("p2-shell-e2e-");
});
afterAll(() => h.remove());

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
			run.type("!echo hello-from-bash\r");
			await run.waitFor((s) => s.includes("$ echo hello-from-bash") && s.includes(" hello-from-bash"), "the block");
			run.type("!!echo kept-private\r");
			await run.waitFor((s) => s.includes("$ echo kept-private"), "the !! block");
			run.type("!sleep 30\r");
			await run.waitFor((s) => s.includes("Running... (escape to cancel)"), "the running command");
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
