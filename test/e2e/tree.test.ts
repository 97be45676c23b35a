import { describe, expect, test } from "bun:test";
import { fakeHomeForFile, MAIN } from "../support/fake-home.ts";
import { runInPty } from "../support/pty.ts";

const h = fakeHomeForFile("p2-tree-e2e-");

/** The row of the screen that holds `text`. */
const rowOf = (screen: string, text: string) => screen.split("\n").findIndex((l) => l.includes(text));

describe("/tree: the session and its forks, with pi's selector", () => {
	test("a fork shows under its session; Enter opens one; pi's notices follow the conversation they are about", async () => {
		const run = runInPty([process.execPath, MAIN], { env: h.env, cwd: h.home, cols: 120, rows: 40 });
		try {
			await run.waitFor((s) => s.includes("fake-model"), "the chat");
			h.fake.enqueue({ text: "Answer one." }, { text: "Answer two." });
			run.type("question one\r");
			await run.waitFor((s) => s.includes("Answer one."), "the first answer");
			run.type("question two\r");
			await run.waitFor((s) => s.includes("Answer two."), "the second answer");

			run.type("/fork");
			await run.waitFor((s) => s.includes("Create a new fork"), "the command in the list");
			run.type("\r");
			await run.waitFor((s) => s.includes("Message 2 of 2"), "pi's fork selector");
			run.type("\r");
			await run.waitFor((s) => s.includes("Forked to new session") && s.includes("Answer one."), "the fork");
			const forked = run.screen().join("\n");
			expect(rowOf(forked, "Forked to new session")).toBeGreaterThan(rowOf(forked, "Answer one."));

			run.type("\x15");
			await run.waitFor((s) => !/^question two\s*$/m.test(s), "the editor emptied");
			run.type("/tree");
			await run.waitFor((s) => s.includes("Navigate session tree"), "the command in the list");
			run.type("\r");
			await run.waitFor((s) => s.includes("Session Tree") && s.includes("Type to search:"), "pi's tree selector");
			await run.waitFor(
				(s) => /^ {2}• question one\s*$/m.test(s) && /^› └─ • question one\s*$/m.test(s) && s.includes("(2/2)"),
				"the session, and its fork under it, selected: both on the open session's path",
			);
			run.type("\x1b[A");
			await run.waitFor((s) => /^› • question one\s*$/m.test(s), "the session selected");
			run.type("\r");
			await run.waitFor((s) => s.includes("Resumed session") && s.includes("Answer two."), "the session opened");
			const resumed = run.screen().join("\n");
			expect(rowOf(resumed, "Resumed session")).toBeGreaterThan(rowOf(resumed, "Answer two."));
			expect(resumed).not.toContain("Session Tree");

			// pi's double Escape on an empty editor opens the same tree (doubleEscapeAction "tree").
			run.type("\x1b");
			await Bun.sleep(100);
			run.type("\x1b");
			await run.waitFor((s) => s.includes("Session Tree") && /^› • question one\s*$/m.test(s), "the tree again");
			run.type("\x1b");
			await run.waitFor((s) => !s.includes("Session Tree"), "Escape closes it");
		} finally {
			run.kill();
			await run.exited;
		}
	}, 60_000);
});
