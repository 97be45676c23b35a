import { describe, expect, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeHomeForFile, MAIN } from "../support/fake-home.ts";
import { runInPty } from "../support/pty.ts";

const h = fakeHomeForFile("p2-startup-e2e-");

/** A project with pi's context file, and pi's settings.json (none for undefined). */
function setUp(settings: Record<string, unknown> | undefined): string {
	const project = join(h.home, "proj");
	mkdirSync(project, { recursive: true });
	writeFileSync(join(project, "AGENTS.md"), "# Rules of this project\n");
	const agent = join(h.home, ".pi", "agent");
	mkdirSync(agent, { recursive: true });
	if (settings) writeFileSync(join(agent, "settings.json"), JSON.stringify(settings));
	else rmSync(join(agent, "settings.json"), { force: true });
	return project;
}

describe("start-up: pi's loaded resources under the header, and quietStartup", () => {
	test("[Context] lists the session's context files; Ctrl+O shows their paths", async () => {
		const project = setUp(undefined);
		const run = runInPty([process.execPath, MAIN], { env: h.env, cwd: project, cols: 120, rows: 40 });
		try {
			await run.waitFor((s) => /^\[Context\]\n {2}AGENTS\.md$/m.test(s), "pi's [Context] with the short name");
			const screen = run.screen().join("\n");
			expect(screen).toContain("Press ctrl+o to show full startup help and loaded resources.");
			const lines = screen.split("\n");
			expect(lines.indexOf("[Context]")).toBeGreaterThan(lines.findIndex((l) => l.includes("Press ctrl+o")));
			run.type("\x0f");
			await run.waitFor((s) => /^\[Context\]\n {2}~\/proj\/AGENTS\.md$/m.test(s), "the full path (Ctrl+O)");
		} finally {
			run.kill();
			await run.exited;
		}
	}, 40_000);

	for (const [quiet, header] of [
		[true, false],
		["header", true],
	] as const) {
		test(`quietStartup ${JSON.stringify(quiet)}: no resources listed${header ? ", the header kept" : ", no header"}`, async () => {
			const project = setUp({ quietStartup: quiet });
			const run = runInPty([process.execPath, MAIN], { env: h.env, cwd: project, cols: 120, rows: 40 });
			try {
				await run.waitFor((s) => s.includes("fake-model"), "the chat");
				h.fake.enqueue({ text: "Started." });
				run.type("go\r");
				await run.waitFor((s) => s.includes("Started."), "an answer (the session's state has arrived)");
				const screen = run.screen().join("\n");
				expect(screen).not.toContain("[Context]");
				expect(screen.includes("escape interrupt")).toBe(header);
				if (header) expect(screen).toContain("Press ctrl+o to show full startup help.");
			} finally {
				run.kill();
				await run.exited;
			}
		}, 40_000);
	}
});
