import { afterAll, beforeAll, describe, expect, test } from "bun:test";
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
});
