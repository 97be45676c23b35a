import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type FakeHome, fakeHome, MAIN } from "../support/fake-home.ts";
import { type PtyRun, runInPty } from "../support/pty.ts";

let h: FakeHome;

beforeAll(async () => {
	h = await fakeHome("p2-scheme-e2e-");
});
afterAll(() => h.remove());

/** The foreground color of the first cell of `word` on screen, as xterm stores it. */
function colorOf(run: PtyRun, word: string): number {
	const buffer = run.term.buffer.active;
	for (let y = 0; y < run.term.rows; y++) {
		const line = buffer.getLine(buffer.viewportY + y);
		const x = line?.translateToString(true).indexOf(word) ?? -1;
		if (line && x >= 0) return line.getCell(x)!.getFgColor();
	}
	throw new Error(`${word} is not on screen`);
}

describe("the terminal's light/dark, end to end", () => {
	test("p2 turns on scheme reports; a report of light repaints the system theme, dark again repaints it back", async () => {
		const run = runInPty([process.execPath, MAIN], {
			env: { ...h.env, COLORTERM: "truecolor", COLORFGBG: "15;0" },
			cwd: h.home,
			cols: 120,
			rows: 40,
		});
		try {
			await run.waitFor((s) => s.includes("clear/exit"), "the header");
			expect(run.raw()).toContain("\x1b[?2031h");
			const dark = colorOf(run, "clear/exit");
			run.term.options.theme = { background: "#ffffff", foreground: "#000000" };
			run.type("\x1b[?997;2n");
			await run.waitFor(() => colorOf(run, "clear/exit") !== dark, "the header in a light theme");
			// The report never reached the UI as keys: the editor is empty.
			expect(run.screen().join("\n")).not.toContain("997");
			run.term.options.theme = { background: "#000000", foreground: "#ffffff" };
			run.type("\x1b[?997;1n");
			await run.waitFor(() => colorOf(run, "clear/exit") === dark, "the header in the dark theme again");
		} finally {
			run.kill();
			await run.exited;
		}
		// Leaving, p2 turns the reports off.
		expect(run.raw()).toContain("\x1b[?2031l");
	}, 30_000);

	test("terminal.trueColor false in pi's settings.json: the dark theme draws in 256 colors where COLORTERM says 24-bit", async () => {
		const agentDir = join(h.home, ".pi", "agent");
		mkdirSync(agentDir, { recursive: true });
		const settings = join(agentDir, "settings.json");
		writeFileSync(settings, JSON.stringify({ theme: "dark", terminal: { trueColor: false } }));
		const run = runInPty([process.execPath, MAIN], {
			env: { ...h.env, COLORTERM: "truecolor" },
			cwd: h.home,
			cols: 120,
			rows: 40,
		});
		try {
			await run.waitFor((s) => s.includes("clear/exit"), "the header");
			expect(run.raw()).toContain("\x1b[38;5;");
			expect(run.raw()).not.toContain("\x1b[38;2;");
			// "auto" (or no setting) keeps what the terminal says: the theme repaints in 24-bit color.
			const from = run.raw().length;
			writeFileSync(settings, JSON.stringify({ theme: "dark", terminal: { trueColor: "auto" } }));
			await run.waitForOutput("\x1b[38;2;", from, "24-bit colors after the setting changed");
		} finally {
			run.kill();
			await run.exited;
		}
	}, 30_000);
});
