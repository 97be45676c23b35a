import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type FakeHome, fakeHome, MAIN } from "../support/fake-home.ts";
import { type PtyRun, runInPty } from "../support/pty.ts";

let h: FakeHome;
let agentDir: string;

beforeAll(async () => {
	h = await fakeHome("p2-prefs-e2e-");
	agentDir = join(h.home, ".pi", "agent");
	mkdirSync(agentDir, { recursive: true });
	writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ theme: "light", hideThinkingBlock: "yes" }));
	// pi's legacy name, as an older keybindings.json has it.
	writeFileSync(join(agentDir, "keybindings.json"), JSON.stringify({ expandTools: "alt+o" }));
	// The server's defaults sit under the person's files; its launcher ids are dropped.
	writeFileSync(
		join(h.data, "tui.json"),
		JSON.stringify({
			keybindings: { "app.thinking.toggle": "f7", "app.tools.expand": "f8", "app.editor.external": "enter" },
		}),
	);
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

describe("pi's preference files and /settings, end to end", () => {
	test("a legacy key name works at start, a remap on disk works without a restart, /hotkeys says what is wrong", async () => {
		const run = runInPty([process.execPath, MAIN], { env: h.env, cwd: h.home, cols: 120, rows: 40 });
		try {
			await run.waitFor((s) => s.includes("alt+o more"), "the header naming the remapped key");
			// The start's warnings are in before the keys (a warning between two status lines keeps both).
			await run.waitFor((s) => s.includes("app.editor.external is the launcher's; ignored"), "the tui.json warning");
			run.type("\x1bo");
			await run.waitFor((s) => s.includes("Tool output: expanded"), "alt+o expanding tools");

			writeFileSync(join(agentDir, "keybindings.json"), JSON.stringify({ "app.tools.expand": "f5" }));
			await run.waitFor((s) => s.includes("f5 to expand tools"), "the header after the file changed");
			run.type("\x1b[15~");
			await run.waitFor((s) => s.includes("Tool output: collapsed"), "F5 doing it now");
			// Alt+O no longer toggles: once F7 after it has been taken, F5 expands what Alt+O left collapsed. (Each
			// notice replaces the one before.)
			run.type("\x1bo");
			run.type("\x1b[18~");
			await run.waitFor((s) => s.includes("Thinking blocks: hidden"), "F7 from the server's tui.json");
			run.type("\x1b[15~");
			await run.waitFor((s) => s.includes("Tool output:"), "F5's notice");
			expect(run.screen().join("\n")).toContain("Tool output: expanded");

			run.type("/hotkeys\r");
			await run.waitFor(
				(s) => s.includes("Problems") && s.includes("server: tui.json"),
				"the end of the hotkeys block",
			);
			await run.waitFor((s) => s.includes("settings.json: invalid hideThinkingBlock"), "the settings problem listed");
			expect(run.screen().join("\n")).toContain(
				`server: tui.json (${join(h.data, "tui.json")}): app.editor.external is the launcher's; ignored`,
			);
			expect(run.screen().join("\n")).not.toContain(agentDir);
		} finally {
			run.kill();
			await run.exited;
		}
	}, 30_000);

	test("/settings → Theme → dark, confirmed on the launcher's screen: prefs.json is written and the screen repainted", async () => {
		const run = runInPty([process.execPath, MAIN], { env: h.env, cwd: h.home, cols: 120, rows: 40 });
		try {
			await run.waitFor((s) => s.includes("clear/exit"), "the header");
			const light = colorOf(run, "clear/exit");

			run.type("/settings\r");
			await run.waitFor((s) => s.includes("Type to search"), "the settings list");
			run.type("\x1b[A");
			await run.waitFor((s) => s.includes("Color theme for the interface"), "the theme row");
			run.type("\r");
			await run.waitFor((s) => s.includes("Select a theme") && s.includes("Preview"), "the theme submenu");
			// The preview is its own: the live screen keeps its theme until the save.
			run.type("\x1b[A");
			await run.waitFor((s) => /→ +dark/.test(s), "the cursor on dark");
			run.type("\r");
			await run.waitFor((s) => /Theme\s+dark/.test(s), "dark chosen in the list");
			run.type("\x1b");
			await run.waitFor((s) => s.includes("not the server's screen"), "the launcher's consent screen");
			const consent = run.screen().join("\n");
			expect(consent).toContain("Action: Save display preferences");
			expect(consent).toContain(`File: ${join(h.home, ".pi", "p2-tui", "prefs.json")}`);
			expect(consent).toContain('+ theme: "dark"');
			expect(existsSync(join(h.home, ".pi", "p2-tui", "prefs.json"))).toBe(false);
			// Keys go to the launcher's screen only.
			run.type("x");
			// Confirmation counts once the screen has been up long enough to be read.
			await run.waitFor((s) => s.includes("Enter or y: confirm"), "the question ready to confirm");
			run.type("y");
			await run.waitFor((s) => s.includes("Preferences saved"), "the save confirmed in the transcript");
			expect(JSON.parse(readFileSync(join(h.home, ".pi", "p2-tui", "prefs.json"), "utf8"))).toEqual({ theme: "dark" });
			await run.waitFor(() => colorOf(run, "clear/exit") !== light, "the header in the dark theme");
			expect(run.screen().join("\n")).not.toMatch(/^ *x$/m);
			// pi's own files are never written.
			expect(JSON.parse(readFileSync(join(agentDir, "settings.json"), "utf8")).theme).toBe("light");
		} finally {
			run.kill();
			await run.exited;
		}
	}, 30_000);

	test("display settings from settings.json: the tab's progress while the agent works, pi's code block indent", async () => {
		writeFileSync(
			join(agentDir, "settings.json"),
			JSON.stringify({ terminal: { showTerminalProgress: true }, markdown: { codeBlockIndent: "      " } }),
		);
		const run = runInPty([process.execPath, MAIN], { env: h.env, cwd: h.home, cols: 120, rows: 40 });
		const progress: string[] = [];
		run.term.parser.registerOscHandler(9, (data) => {
			progress.push(data);
			return true;
		});
		try {
			await run.waitFor((s) => s.includes("fake-model"), "the footer with the model");
			h.fake.enqueue({ text: "Here:\n\n```\nindented_code()\n```\n", chunks: 4, chunkDelayMs: 150 });
			run.type("show code\r");
			await run.waitFor((s) => s.includes("indented_code()"), "the answer");
			await run.waitFor((s) => !s.includes("Working"), "the run to end");
			await run.waitFor(() => progress.includes("4;0;"), "the progress cleared");
			expect(progress.some((p) => p.startsWith("4;3"))).toBe(true);
			// One column of message padding, then pi's indent as configured.
			expect(run.screen().some((line) => line.startsWith(" " + "      " + "indented_code()"))).toBe(true);
		} finally {
			run.kill();
			await run.exited;
		}
	}, 30_000);
});
