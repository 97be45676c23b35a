import { describe, expect, test } from "bun:test";
import { fakeHomeForFile, MAIN } from "../support/fake-home.ts";
import { runInPty } from "../support/pty.ts";

const h = fakeHomeForFile("p2-fork-e2e-");

describe("/fork end to end", () => {
	test("pi's message selector; the fork opens with the chosen message in the editor, without it in the transcript", async () => {
		const run = runInPty([process.execPath, MAIN], { env: h.env, cwd: h.home, cols: 100, rows: 40 });
		try {
			await run.waitFor((s) => s.includes("fake-model"), "the chat");
			h.fake.enqueue({ text: "Answer one." }, { text: "Answer two." });
			run.type("question one\r");
			await run.waitFor((s) => s.includes("Answer one."), "the first answer");
			run.type("question two\r");
			await run.waitFor((s) => s.includes("Answer two."), "the second answer");
			run.type("/fork");
			await run.waitFor((s) => s.includes("→ fork"), "/fork in the command list");
			run.type("\r");
			await run.waitFor(
				(s) => s.includes("Fork from Message") && s.includes("› question two") && s.includes("Message 2 of 2"),
				"pi's selector on the latest message",
			);
			run.type("\r");
			await run.waitFor((s) => s.includes("Forked to new session"), "the notice");
			await run.waitFor(
				(s) => s.includes("Answer one.") && !s.includes("Answer two.") && /^question two\s*$/m.test(s),
				"the fork: what came before, and the message back in the editor",
			);
			// pi's double Escape on an empty editor: the session tree (doubleEscapeAction "tree"), the fork under its session.
			run.type("\x15");
			await run.waitFor((s) => !/^question two\s*$/m.test(s), "the editor empty");
			// Two Escapes as a kitty-protocol terminal sends them: two keys even when read in one chunk (two bare
			// ESC bytes read together are Alt+Escape).
			run.type("\x1b[27u\x1b[27u");
			await run.waitFor((s) => s.includes("Session Tree") && s.includes("└─"), "the session tree");
		} finally {
			run.kill();
			await run.exited;
		}
	}, 40_000);

	test("p2 --fork <prefix> opens a new fork of that session here", async () => {
		const { Catalog } = await import("../../src/server/store/catalog.ts");
		const catalog = Catalog.open(h.data);
		// The session the test above made.
		const source = catalog.list({}).find((r) => r.parent === null && r.title !== "");
		const before = catalog.list({}).filter((r) => r.parent === source?.id).length;
		catalog.close();
		expect(source).toBeDefined();
		const run = runInPty([process.execPath, MAIN, "--fork", source!.id.slice(0, 8)], {
			env: h.env,
			cwd: h.home,
			cols: 100,
			rows: 40,
		});
		try {
			await run.waitFor((s) => s.includes("Forked to new session") && s.includes("Answer one."), "the fork");
		} finally {
			run.kill();
			await run.exited;
		}
		const after = Catalog.open(h.data);
		const forks = after.list({}).filter((r) => r.parent === source!.id);
		after.close();
		expect(forks.length).toBe(before + 1);
		expect(forks.every((r) => r.cwd === h.home)).toBe(true);
	}, 40_000);
});
