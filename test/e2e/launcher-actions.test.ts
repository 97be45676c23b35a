import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type FakeHome, fakeHome, MAIN } from "../support/fake-home.ts";
import { type PtyRun, runInPty } from "../support/pty.ts";
import { waitUntil } from "../support/wait.ts";

let h: FakeHome;
let editor: string;
beforeAll(async () => {
	h = await fakeHome("p2-actions-e2e-");
	// An "editor" that appends to the file it is given, as a person would type.
	editor = join(h.home, "fake-editor.sh");
	writeFileSync(editor, '#!/bin/sh\nprintf \'%s\' "$(cat "$1") and more from the editor" > "$1"\n');
	chmodSync(editor, 0o755);
});
afterAll(() => h.remove());

/** What reached the terminal's clipboard (OSC 52, as a headless session copies). */
function clipboard(run: PtyRun): string[] {
	const copied: string[] = [];
	run.term.parser.registerOscHandler(52, (data) => {
		copied.push(Buffer.from(data.slice(data.indexOf(";") + 1), "base64").toString("utf8"));
		return true;
	});
	return copied;
}

describe("the launcher's actions end to end", () => {
	test("Ctrl+X copies the last answer; /copy asks on the launcher's screen first; Ctrl+G round-trips the editor", async () => {
		const run = runInPty([process.execPath, MAIN], {
			env: { ...h.env, EDITOR: editor },
			cwd: h.home,
			cols: 120,
			rows: 40,
		});
		const copied = clipboard(run);
		try {
			await run.waitFor((s) => s.includes("fake-model"), "the chat");
			h.fake.enqueue({ text: "The answer to copy." });
			run.type("say something\r");
			await run.waitFor((s) => s.includes("The answer to copy."), "the answer");

			run.type("\x18");
			await run.waitFor((s) => s.includes("Copied 19 characters"), "the copy notice");
			expect(copied).toEqual(["The answer to copy."]);

			run.type("/copy\r");
			await run.waitFor((s) => s.includes("not the server's screen"), "the consent screen");
			const consent = run.screen().join("\n");
			expect(consent).toContain("Action: Copy to this computer's clipboard (the UI asked)");
			expect(consent).toContain("Length: 19 characters");
			expect(consent).toContain("The answer to copy.");
			expect(copied.length).toBe(1);
			await run.waitFor((s) => s.includes("Enter or y: confirm"), "the question ready to confirm");
			run.type("\r");
			await run.waitFor((s) => s.includes("Copied 19 characters to the clipboard"), "copied after consent");
			expect(copied.length).toBe(2);

			// While a selector has the keys, the launcher leaves its own to it: Ctrl+X copies nothing here. (The UI
			// tells the launcher who has the keys before the screen that shows the selector.) A copy would write to
			// the terminal as soon as the UI answered; Ctrl+G's round trip below is answered after it and ends later.
			run.type("\x0c");
			await run.waitFor((s) => s.includes("Model Name:"), "the model selector");
			run.type("\x18");
			run.type("\x1b");
			await run.waitFor((s) => !s.includes("Model Name:"), "the selector closed");

			run.type("a draft");
			await run.waitFor((s) => s.includes("a draft"), "the draft");
			run.type("\x07");
			await run.waitFor((s) => s.includes("a draft and more from the editor"), "the edited text back in the editor");
			await run.waitFor((s) => s.includes("fake-model"), "the screen redrawn");
			expect(copied.length).toBe(2);
		} finally {
			run.kill();
			await run.exited;
		}
	}, 40_000);

	test("Ctrl+Z without a job-control shell does not leave p2 frozen: the screen and keys come back", async () => {
		// The pty's program is its session's first: the kernel drops its SIGTSTP, as under tmux or ssh.
		const run = runInPty([process.execPath, MAIN], { env: h.env, cwd: h.home, cols: 120, rows: 40 });
		try {
			await run.waitFor((s) => s.includes("fake-model"), "the chat");
			const before = run.raw().length;
			run.type("\x1a");
			// The launcher lends the terminal out (leaving the alternate screen) and takes it back when the stop
			// did not happen: the worker's screen modes come back, and keys count again.
			await run.waitForOutput("\x1b[?1049l", before, "the terminal lent out");
			await run.waitForOutput("\x1b[?1049h", run.raw().indexOf("\x1b[?1049l", before), "the terminal taken back");
			run.type("still here");
			await run.waitFor((s) => s.includes("still here") && s.includes("fake-model"), "the UI back, taking keys");
		} finally {
			run.kill();
			await run.exited;
		}
	}, 30_000);

	test("/attach: the launcher asks, the file shows as a chip and goes with the next message", async () => {
		writeFileSync(join(h.home, "spec.txt"), "the attached spec says hello");
		const run = runInPty([process.execPath, MAIN], { env: h.env, cwd: h.home, cols: 120, rows: 40 });
		try {
			await run.waitFor((s) => s.includes("fake-model"), "the chat");
			run.type("/attach spec.txt\r");
			await run.waitFor((s) => s.includes("Send a file from this computer to the server"), "the launcher's question");
			expect(run.screen().join("\n")).toContain(`File: ${join(h.home, "spec.txt")}`);
			await run.waitFor((s) => s.includes("Enter or y: confirm"), "the question ready to confirm");
			run.type("y");
			await run.waitFor((s) => s.includes("[spec.txt 28 B]"), "the chip");
			h.fake.enqueue({ text: "Got the spec." });
			run.type("read this\r");
			await run.waitFor((s) => s.includes("Got the spec."), "the answer");
			expect(JSON.stringify(h.fake.requests.at(-1))).toContain("the attached spec says hello");
			expect(run.screen().join("\n")).not.toContain("[spec.txt 28 B]");

			// Without a path: the launcher's own picker, then the same question.
			run.type("/attach\r");
			await run.waitFor((s) => s.includes("Choose a file to send"), "the launcher's picker");
			for (const c of "spec") run.type(c);
			await run.waitFor((s) => s.includes("› spec.txt"), "the file found by typing");
			run.type("\r");
			await run.waitFor((s) => s.includes("Send a file from this computer to the server"), "the question");
			await run.waitFor((s) => s.includes("Enter or y: confirm"), "the question ready to confirm");
			run.type("y");
			await run.waitFor((s) => s.includes("[spec.txt 28 B]"), "the chip again");

			// The file sent before comes back through /download, into the download folder, replacing nothing.
			for (const expected of ["spec.txt", "spec (1).txt"]) {
				run.type("/download\r");
				// The list's own hint (the command's title shows in the slash menu already).
				await run.waitFor((s) => s.includes("enter preview (ctrl+s there saves)"), "the file list");
				// Enter previews (through the chat object: the worker has no cookie); Ctrl+S saves.
				run.type("\r");
				await run.waitFor((s) => /1 the attached spec says hello/.test(s), "the preview");
				run.type("\x13");
				await run.waitFor((s) => s.includes("Save a file from the server on this computer"), "the question");
				expect(run.screen().join("\n")).toContain(`Into: ${join(h.home, "Downloads", "p2")}`);
				await run.waitFor((s) => s.includes("Enter or y: confirm"), "the question ready to confirm");
				run.type("y");
				// The second save's notice reads as the first's did: the new file is what shows it was saved.
				const saved = join(h.home, "Downloads", "p2", expected);
				await waitUntil(
					() => existsSync(saved) && readFileSync(saved, "utf8") === "the attached spec says hello",
					`${expected} saved`,
				);
				await run.waitFor((s) => s.includes("Saved spec.txt in your download folder"), "the notice");
				// The preview stays until Escape, which goes back to the list; Escape again closes it.
				run.type("\x1b");
				await run.waitFor((s) => s.includes("enter preview") && !s.includes("ctrl+s save"), "back to the list");
				run.type("\x1b");
				await run.waitFor((s) => !s.includes("Files sent to this session"), "the list closed");
			}
		} finally {
			run.kill();
			await run.exited;
		}
	}, 30_000);

	test("Ctrl+Z under a job-control shell stops p2; fg brings the screen back", async () => {
		const run = runInPty(["bash", "--norc", "--noprofile", "-i"], {
			env: { ...h.env, PS1: "shell$ " },
			cwd: h.home,
			cols: 120,
			rows: 40,
		});
		try {
			await run.waitFor((s) => s.includes("shell$"), "the shell");
			run.type(`${JSON.stringify(process.execPath)} ${JSON.stringify(MAIN)}\r`);
			await run.waitFor((s) => s.includes("fake-model"), "p2 in the shell");
			run.type("\x1a");
			await run.waitFor((s) => s.includes("Stopped"), "the shell's job line");
			run.type("fg\r");
			await run.waitFor((s) => s.includes("fake-model") && s.includes("this device"), "p2's screen again");
			run.type("back again");
			await run.waitFor((s) => s.includes("back again"), "keys reach p2");
		} finally {
			// An interactive shell ignores SIGTERM; its p2 ends with the terminal (SIGHUP).
			process.kill(run.pid, "SIGKILL");
			await run.exited;
		}
	}, 30_000);
});
