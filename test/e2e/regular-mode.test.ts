/**
 * pi's regular renderer (`--tui-mode regular`, the tuiMode setting): the screen follows the content into the
 * terminal's normal scrollback, a /reload draws on from what is there (nothing twice), /settings switches it
 * live, and p2 leaves the terminal below the transcript.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeHomeForFile, MAIN } from "../support/fake-home.ts";
import { type PtyRun, runInPty } from "../support/pty.ts";

const h = fakeHomeForFile("p2-regular-e2e-");
const ROWS = 16;
/** What the launcher's reset writes on the normal screen (each swap, and at exit): the cursor stays put. */
const NORMAL_SCREEN_RESET = "\x1b7\x1b[r\x1b8";

/** pi's settings.json in the fake home, or none. */
function piSettings(settings: Record<string, unknown> | undefined) {
	const dir = join(h.home, ".pi", "agent");
	if (!settings) return rmSync(join(dir, "settings.json"), { force: true });
	mkdirSync(dir, { recursive: true });
	writeFileSync(join(dir, "settings.json"), JSON.stringify(settings));
}

function start(args: string[]): PtyRun {
	return runInPty([process.execPath, MAIN, ...args], { env: h.env, cwd: h.home, cols: 90, rows: ROWS });
}

/** Every line the terminal holds: the scrollback, then the screen. */
function allLines(run: PtyRun): string[] {
	const buffer = run.term.buffer.active;
	const lines: string[] = [];
	for (let i = 0; i < buffer.length; i++) lines.push(buffer.getLine(i)?.translateToString(true) ?? "");
	return lines;
}

/** How many lines show `text`, not counting the footer's crumb (`~ • <title>`, the first message). */
function count(lines: readonly string[], text: string): number {
	return lines.filter((line) => line.includes(text) && !line.includes(" • ")).length;
}

/** One exchange whose answer is longer than the screen. */
async function exchange(run: PtyRun, name: string): Promise<void> {
	const body = Array.from({ length: 12 }, (_, i) => `${name} line ${i + 1}`).join("\n\n");
	h.fake.enqueue({ text: `Answer to ${name}.\n\n${body}` });
	run.type(`${name} question\r`);
	await run.waitFor((s) => s.includes(`${name} line 12`) && !s.includes("Working"), `the answer to ${name}`);
}

describe("pi's regular renderer (--tui-mode regular)", () => {
	test("it draws on the normal screen: the editor and footer right after the content, the conversation going up into the scrollback", async () => {
		piSettings(undefined);
		const run = start(["--tui-mode", "regular"]);
		try {
			await run.waitFor((s) => s.includes("fake-model"), "the chat");
			expect(run.term.buffer.active.type).toBe("normal");
			expect(run.raw()).not.toContain("\x1b[?1049h");
			// No blank filler: the footer follows the header and the editor, with empty rows below it.
			const footer = run.screen().findIndex((line) => line.includes("fake-model"));
			expect(footer).toBeGreaterThan(0);
			expect(footer).toBeLessThan(ROWS - 4);
			expect(
				run
					.screen()
					.slice(footer + 1)
					.every((line) => line === ""),
			).toBe(true);

			await exchange(run, "first");
			await exchange(run, "second");
			const lines = allLines(run);
			const viewTop = run.term.buffer.active.viewportY;
			// The first question went up into the terminal's scrollback, once, and the footer is on the last rows.
			expect(viewTop).toBeGreaterThan(0);
			expect(count(lines, "first question")).toBe(1);
			expect(lines.findIndex((line) => line.includes("first question"))).toBeLessThan(viewTop);
			expect(count(lines, "127.0.0.1")).toBe(1);
			expect(run.screen().at(-1)).toContain("fake-model");
		} finally {
			run.kill();
			await run.exited;
		}
	}, 60_000);

	test("/reload: the new UI draws on from the scrollback as it is, writing nothing twice and clearing nothing", async () => {
		piSettings(undefined);
		const run = start(["--tui-mode", "regular"]);
		try {
			await run.waitFor((s) => s.includes("fake-model"), "the chat");
			await exchange(run, "before");
			const before = allLines(run).join("\n");
			const from = run.raw().length;
			run.type("/reload\r");
			// The launcher's reset at the swap, then the new UI takes the keys.
			await run.waitForOutput(NORMAL_SCREEN_RESET, from, "the new UI on screen");
			await run.typeUntil("z", (s) => /^z+/m.test(s), "the new UI's editor taking keys");
			const after = allLines(run);
			expect(count(after, "before question")).toBe(1);
			expect(count(after, "Answer to before.")).toBe(1);
			expect(count(after, "before line 12")).toBe(1);
			expect(count(after, "127.0.0.1")).toBe(1);
			// Nothing was cleared and drawn again: the scrollback is what it was, up to the editor.
			const since = run.raw().slice(from);
			expect(since).not.toContain("\x1b[3J");
			expect(since).not.toContain("\x1b[2J");
			const upToEditor = (text: string) => text.slice(0, text.indexOf("before line 12"));
			expect(upToEditor(after.join("\n"))).toBe(upToEditor(before));
			expect(run.term.buffer.active.type).toBe("normal");

			// The mode is kept: a conversation after the reload flows on in the scrollback.
			run.type("\x15");
			await run.waitFor((s) => !/^z+/m.test(s), "the editor emptied");
			await exchange(run, "after");
			const end = allLines(run);
			expect(count(end, "before question")).toBe(1);
			expect(count(end, "after question")).toBe(1);
			expect(run.raw().slice(from)).not.toContain("\x1b[?1049h");
		} finally {
			run.kill();
			await run.exited;
		}
	}, 60_000);

	test("at exit the transcript stays where it is, once, with the resume hint below it", async () => {
		piSettings(undefined);
		const run = start(["--tui-mode", "regular"]);
		try {
			await run.waitFor((s) => s.includes("fake-model"), "the chat");
			await exchange(run, "leaving");
			run.type("\x04");
			expect(await run.exited).toBe(0);
			const lines = allLines(run);
			expect(count(lines, "leaving question")).toBe(1);
			expect(count(lines, "leaving line 12")).toBe(1);
			const footer = lines.findLastIndex((line) => line.includes("fake-model"));
			const hint = lines.indexOf("To resume this session:");
			expect(hint).toBeGreaterThan(footer);
			expect(lines[hint + 1]).toMatch(/^p2 --session [0-9a-f-]{36}$/);
			expect(run.raw()).not.toContain("\x1b[?1049");
		} finally {
			run.kill();
		}
	}, 60_000);

	test("three Ctrl+C (p2 ends whatever the UI does): the cursor goes below the footer, not over it", async () => {
		piSettings(undefined);
		const run = start(["--tui-mode", "regular"]);
		try {
			await run.waitFor((s) => s.includes("fake-model"), "the chat");
			const footer = run.screen().findIndex((line) => line.includes("fake-model"));
			run.type("\x03\x03\x03");
			expect(await run.exited).toBe(130);
			const buffer = run.term.buffer.active;
			expect(buffer.type).toBe("normal");
			expect(run.screen().join("\n")).toContain("fake-model");
			expect(buffer.baseY + buffer.cursorY).toBeGreaterThan(buffer.viewportY + footer);
		} finally {
			run.kill();
		}
	}, 60_000);

	test("the tuiMode setting chooses it; --tui-mode wins over the setting; a bad value is refused", async () => {
		piSettings({ tuiMode: "regular" });
		try {
			const regular = start([]);
			try {
				await regular.waitFor((s) => s.includes("fake-model"), "the chat");
				expect(regular.term.buffer.active.type).toBe("normal");
			} finally {
				regular.kill();
				await regular.exited;
			}
			const fullscreen = start(["--tui-mode", "fullscreen"]);
			try {
				await fullscreen.waitFor((s) => s.includes("fake-model"), "the chat");
				expect(fullscreen.term.buffer.active.type).toBe("alternate");
			} finally {
				fullscreen.kill();
				await fullscreen.exited;
			}
		} finally {
			piSettings(undefined);
		}
		const refused = start(["--tui-mode", "scrollback"]);
		expect(await refused.exited).not.toBe(0);
		expect(refused.screen().join("\n")).toContain('Invalid TUI mode "scrollback". Valid values: regular, fullscreen');
	}, 60_000);

	test("/settings → TUI mode switches the renderer live, as pi does, and the conversation stays", async () => {
		piSettings(undefined);
		const run = start([]);
		try {
			await run.waitFor((s) => s.includes("fake-model"), "the chat");
			await exchange(run, "switching");
			expect(run.term.buffer.active.type).toBe("alternate");
			run.type("/settings\r");
			await run.waitFor((s) => s.includes("Skill commands"), "the settings list");
			run.type("tui mode");
			await run.waitFor((s) => s.includes("regular mode uses the terminal's normal scrollback"), "the TUI mode row");
			run.type("\r");
			await run.waitFor((s) => /TUI mode\s+regular/.test(s), "regular chosen");
			run.type("\x1b");
			await run.waitFor((s) => s.includes("Enter or y: confirm"), "the launcher's question to save it");
			run.type("y");
			await run.waitFor((s) => s.includes("TUI mode: regular"), "pi's notice of the switch");
			expect(run.term.buffer.active.type).toBe("normal");
			const lines = allLines(run);
			expect(count(lines, "switching question")).toBe(1);
			expect(count(lines, "switching line 12")).toBe(1);
		} finally {
			run.kill();
			await run.exited;
		}
	}, 60_000);

	test("/settings shows the mode on (the flag's), and choosing fullscreen takes the alternate screen", async () => {
		piSettings({ tuiMode: "fullscreen" });
		const run = start(["--tui-mode", "regular"]);
		try {
			await run.waitFor((s) => s.includes("fake-model"), "the chat");
			expect(run.term.buffer.active.type).toBe("normal");
			run.type("/settings\r");
			// Taller than the screen: its top has gone up into the scrollback.
			await run.waitFor((s) => s.includes("Enter/Space to change"), "the settings list");
			run.type("tui mode");
			await run.waitFor((s) => /TUI mode\s+regular/.test(s), "the TUI mode row showing the mode on");
			run.type("\r");
			await run.waitFor((s) => /TUI mode\s+fullscreen/.test(s), "fullscreen chosen");
			run.type("\x1b");
			await run.waitFor((s) => s.includes("Enter or y: confirm"), "the launcher's question to save it");
			run.type("y");
			await run.waitFor(() => run.term.buffer.active.type === "alternate", "the alternate screen");
			await run.waitFor((s) => s.includes("TUI mode: fullscreen"), "pi's notice of the switch");
			await run.waitFor(
				(s) => s.trimEnd().split("\n").at(-1)?.includes("fake-model") === true,
				"the footer pinned at the bottom",
			);
		} finally {
			run.kill();
			await run.exited;
			piSettings(undefined);
		}
	}, 60_000);
});
