/**
 * /terminal end to end: p2 in a pseudo-terminal, the session's shell in the panel. What is typed there reaches
 * the shell and its output shows in the panel; what a program there prints as control sequences (a title, a
 * clipboard write) never reaches the person's terminal; Ctrl+] returns to the editor and the shell stays.
 */
import { expect, test } from "bun:test";
import { fakeHomeForFile, MAIN } from "../support/fake-home.ts";
import { runInPty } from "../support/pty.ts";

const h = fakeHomeForFile("p2-terminal-e2e-");

test("echo typed into the panel shows its output there; Ctrl+] returns to the editor, /terminal finds the same shell", async () => {
	const run = runInPty([process.execPath, MAIN], { env: h.env, cwd: h.home, cols: 100, rows: 30 });
	try {
		await run.waitFor((s) => s.includes("fake-model"), "the chat");
		run.type("/terminal\r");
		await run.waitFor((s) => s.includes("Terminal") && s.includes("ctrl+] back to the editor"), "the panel");
		await run.waitFor((s) => /[$#] *$/m.test(s), "the shell's prompt");
		run.type("echo hi-$((40+2))\r");
		await run.waitFor((s) => /^hi-42\s*$/m.test(s), "the command's output in the panel");
		// A program's title and clipboard write are the emulator's, never the terminal's.
		const from = run.raw().length;
		run.type(
			"printf '\\033]0;evil-title\\007\\033]52;c;c3RvbGVu\\007\\033]8;;https://evil.example/\\033\\\\link\\033]8;;\\033\\\\ \\033P+q544e\\033\\\\\\033[6n\\302\\23331mshown-%s\\n' $((6*7))\r",
		);
		await run.waitFor((s) => /^link shown-42\s*$/m.test(s), "the printf's text");
		const written = run.raw().slice(from);
		for (const leaked of ["\x1b]0;evil", "\x1b]52", "\x1b]8;", "\x1bP+q", "\x1b[6n", "\x9b"]) {
			expect(written).not.toContain(leaked);
		}

		run.type("\x1d");
		await run.waitFor((s) => !s.includes("ctrl+] back to the editor"), "the editor again");
		run.type("/terminal\r");
		await run.waitFor((s) => s.includes("ctrl+] back to the editor") && /^hi-42\s*$/m.test(s), "the same shell");
		run.type("exit\r");
		await run.waitFor((s) => s.includes("the shell exited with code 0"), "the shell's end");
		run.type("\x1b");
		await run.waitFor((s) => !s.includes("Terminal"), "the editor after Esc");
	} finally {
		run.kill();
		await run.exited;
	}
}, 60_000);
