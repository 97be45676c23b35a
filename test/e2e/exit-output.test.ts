import { describe, expect, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeHomeForFile, MAIN } from "../support/fake-home.ts";
import { runInPty } from "../support/pty.ts";

const h = fakeHomeForFile("p2-exit-e2e-");

/** pi's settings.json in the fake home (pi's agent directory), or none. */
function piSettings(settings: Record<string, unknown> | undefined) {
	const dir = join(h.home, ".pi", "agent");
	if (!settings) return rmSync(join(dir, "settings.json"), { force: true });
	mkdirSync(dir, { recursive: true });
	writeFileSync(join(dir, "settings.json"), JSON.stringify(settings));
}

/** Runs p2, has one exchange, leaves with Ctrl+D; what the terminal shows afterwards. */
async function exchangeAndExit(question: string): Promise<{ screen: string; session: string }> {
	const run = runInPty([process.execPath, MAIN], { env: h.env, cwd: h.home, cols: 100, rows: 30 });
	try {
		await run.waitFor((s) => s.includes("fake-model"), "the chat");
		h.fake.enqueue({ text: `Answer to ${question}.` });
		run.type(`${question}\r`);
		await run.waitFor((s) => s.includes(`Answer to ${question}.`), "the answer");
		run.type("\x04");
		expect(await run.exited).toBe(0);
		const screen = run.screen().join("\n");
		const session = /p2 --session ([0-9a-f-]{36})/.exec(screen)?.[1] ?? "";
		return { screen, session };
	} finally {
		run.kill();
	}
}

describe("what p2 leaves on the terminal when it exits (pi's fullscreenExitOutput)", () => {
	test("by default (transcript), the conversation, then the command that reopens the session here", async () => {
		piSettings(undefined);
		const { screen, session } = await exchangeAndExit("first question");
		const lines = screen.split("\n");
		const question = lines.findIndex((l) => l.includes("first question"));
		const answer = lines.findIndex((l) => l.includes("Answer to first question."));
		const hint = lines.indexOf("To resume this session:");
		expect(question).toBeGreaterThanOrEqual(0);
		expect(answer).toBeGreaterThan(question);
		expect(hint).toBeGreaterThan(answer);
		expect(lines[hint + 1]).toBe(`p2 --session ${session}`);
		expect(session).not.toBe("");

		// The command does reopen it: the conversation is back.
		const again = runInPty([process.execPath, MAIN, "--session", session], {
			env: h.env,
			cwd: h.home,
			cols: 100,
			rows: 30,
		});
		try {
			await again.waitFor((s) => s.includes("Answer to first question."), "the session reopened");
		} finally {
			again.kill();
			await again.exited;
		}
	}, 60_000);

	test("resume-hint: only the command, no transcript", async () => {
		piSettings({ fullscreenExitOutput: "resume-hint" });
		try {
			const { screen, session } = await exchangeAndExit("second question");
			expect(screen).toContain(`To resume this session:\np2 --session ${session}`);
			expect(screen).not.toContain("Answer to second question.");
		} finally {
			piSettings(undefined);
		}
	}, 60_000);
});
