import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { type FakeHome, fakeHome, MAIN } from "../support/fake-home.ts";
import { runInPty } from "../support/pty.ts";

let h: FakeHome;
let first: string;
let second: string;

beforeAll(async () => {
	h = await fakeHome("p2-sessions-e2e-");
	first = join(h.home, "first-proj");
	second = join(h.home, "second-proj");
	mkdirSync(first);
	mkdirSync(second);
});
afterAll(() => h.remove());

describe("sessions end to end", () => {
	test("two sessions, rename, resume the first by filtering, find a message, archive and restore", async () => {
		const run = runInPty([process.execPath, MAIN], { env: h.env, cwd: first, cols: 120, rows: 40 });
		const footer = () => run.screen().slice(-3).join("\n");
		try {
			await run.waitFor((s) => s.includes("fake-model"), "the first session");
			h.fake.enqueue({ text: "Noted." });
			run.type("remember the zebra crossing\r");
			await run.waitFor((s) => s.includes("Noted."), "the answer");
			run.type("/name alpha work\r");
			await run.waitFor(() => footer().includes("alpha work"), "the name in the footer");

			run.type(`/new ${second}\r`);
			await run.waitFor((s) => s.includes("New session started"), "the second session");
			run.type("/name beta work\r");
			await run.waitFor(() => footer().includes("beta work"), "its name in the footer");

			run.type("\x12");
			await run.waitFor((s) => s.includes("Resume Session (Current Folder)"), "the selector on this folder");
			expect(run.screen().join("\n")).not.toContain("alpha work");
			run.type("\t");
			await run.waitFor((s) => s.includes("Resume Session (All)") && s.includes("alpha work"), "all sessions");
			for (const c of "alpha") run.type(c);
			await run.waitFor((s) => s.includes("› alpha work") && !s.includes("› beta work"), "the filter on alpha");
			run.type("\r");
			await run.waitFor(() => footer().includes("alpha work"), "the first session resumed");
			await run.waitFor((s) => s.includes("remember the zebra crossing"), "its transcript");
			// pi's notice, after the conversation it opened.
			await run.waitFor(
				(s) => s.indexOf("Resumed session") > s.indexOf("remember the zebra crossing"),
				"pi's Resumed session notice",
			);

			// The message search finds text, not only titles.
			run.type("\x12");
			await run.waitFor((s) => s.includes("Resume Session"), "the selector");
			for (const c of "zebra") run.type(c);
			await run.waitFor((s) => s.includes("Messages (literal matches)"), "message hits");
			expect(run.screen().join("\n")).toContain("alpha work: remember the zebra crossing");
			run.type("\x1b");
			await run.waitFor((s) => !s.includes("Resume Session"), "the selector closed");

			// Archive the second session, find it in the archived scope, restore it.
			run.type("\x12");
			await run.waitFor((s) => s.includes("Resume Session"), "the selector");
			run.type("\t");
			await run.waitFor((s) => s.includes("beta work"), "all sessions");
			for (const c of "beta") run.type(c);
			await run.waitFor((s) => s.includes("› beta work"), "beta selected");
			run.type("\x04");
			await run.waitFor((s) => s.includes('Archive "beta work"?'), "the question");
			run.type("y");
			await run.waitFor((s) => s.includes("No sessions found"), "beta gone from the list");
			run.type("\x01");
			await run.waitFor((s) => s.includes("Archived Sessions") && s.includes("beta work"), "the archived scope");
			run.type("\x04");
			await run.waitFor((s) => s.includes("No sessions found"), "restored out of the archived scope");
			run.type("\x01");
			await run.waitFor((s) => s.includes("Resume Session") && s.includes("beta work"), "beta back in the list");
		} finally {
			run.kill();
			await run.exited;
		}
	}, 60_000);

	test("--resume opens the session picker at start; Enter resumes the chosen one", async () => {
		const run = runInPty([process.execPath, MAIN, "--resume"], { env: h.env, cwd: second, cols: 120, rows: 40 });
		try {
			await run.waitFor((s) => s.includes("Resume Session (Current Folder)") && s.includes("beta work"), "the picker");
			run.type("\t");
			for (const c of "alpha") run.type(c);
			await run.waitFor((s) => s.includes("› alpha work"), "alpha found");
			run.type("\r");
			await run.waitFor((s) => s.includes("remember the zebra crossing"), "alpha's transcript");
		} finally {
			run.kill();
			await run.exited;
		}
	}, 30_000);
});
