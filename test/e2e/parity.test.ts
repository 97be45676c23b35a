import { describe, test } from "bun:test";
import { fakeHomeForFile, MAIN } from "../support/fake-home.ts";
import { type PtyRun, runInPty } from "../support/pty.ts";

const h = fakeHomeForFile("p2-parity-e2e-");

async function chat(): Promise<PtyRun> {
	const run = runInPty([process.execPath, MAIN], { env: h.env, cwd: h.home, cols: 120, rows: 40 });
	await run.waitFor((s) => s.includes("fake-model"), "the chat");
	return run;
}

async function close(run: PtyRun): Promise<void> {
	run.kill();
	await run.exited;
}

describe("pi parity: what a pi user trips over", () => {
	test("Ctrl+T hides thinking blocks, and /settings says so", async () => {
		const run = await chat();
		try {
			run.type("\x14");
			await run.waitFor((s) => s.includes("Thinking blocks: hidden"), "the status line");
			run.type("/settings");
			await run.waitFor((s) => s.includes("/settings"), "the command typed");
			run.type("\r");
			await run.waitFor((s) => s.includes("Show hardware cursor"), "the settings list");
			run.type("hide thinking");
			await run.waitFor((s) => /Hide thinking\s+true/.test(s), "the current value");
		} finally {
			await close(run);
		}
	}, 40_000);

	test("Shift+Tab three times in one read moves the thinking level three times", async () => {
		const run = await chat();
		try {
			await run.waitFor((s) => s.includes("fake-model • medium"), "the level at start");
			run.type("\x1b[Z\x1b[Z\x1b[Z");
			await run.waitFor((s) => s.includes("fake-model • minimal"), "medium → high → off → minimal");
			await run.waitFor((s) => s.includes("Thinking level: minimal"), "the status line");
		} finally {
			await close(run);
		}
	}, 40_000);
});
