import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stopDeviceServer } from "../support/device-server.ts";
import { type FakeHome, fakeHome, MAIN } from "../support/fake-home.ts";
import type { FakeOpenAI } from "../support/fake-openai.ts";
import { type PtyRun, runInPty } from "../support/pty.ts";
import { seedConversation } from "../support/seed.ts";

let h: FakeHome;
let project: string;
let fake: FakeOpenAI;
let env: Record<string, string>;

beforeAll(async () => {
	h = await fakeHome("p2-chat-");
	({ fake, env } = h);
	project = join(h.home, "proj");
	mkdirSync(project);
	writeFileSync(join(project, "hello.py"), 'def main():\n    print("hello")\n');
	mkdirSync(join(project, ".git"));
	writeFileSync(join(project, ".git", "HEAD"), "ref: refs/heads/main\n");
});
afterAll(() => h.remove());

// A test that fails leaves no p2 behind: its server would be the next test's (and miss a session seeded meanwhile).
const runs: PtyRun[] = [];
afterEach(async () => {
	for (const run of runs.splice(0)) {
		run.kill();
		await run.exited;
	}
});

function pty(args: string[], size: { cols: number; rows: number }): PtyRun {
	const run = runInPty([process.execPath, MAIN, ...args], { env, cwd: project, ...size });
	runs.push(run);
	return run;
}

const start = (...args: string[]) => pty(args, { cols: 120, rows: 40 });
const text = (lines: string[]) => lines.join("\n");

describe("the chat surface end to end (real server, fake model)", () => {
	test("ask, watch the answer stream, a bash card and an edit diff, stop with Esc, steer while busy, --continue", async () => {
		const run = start();
		await run.waitFor(
			(s) => s.includes("this device") && s.includes("fake-model • medium"),
			"pi's screen with the footer",
		);

		fake.enqueue({ text: "Hello from the **fake** model, streaming slowly.", chunks: 6, chunkDelayMs: 120 });
		run.type("hello there\r");
		await run.waitFor((s) => s.includes("Working"), "the working indicator in the editor border");
		await run.waitFor((s) => s.includes("Hello from the fake model, streaming slowly."), "the streamed answer");
		await run.waitFor((s) => !s.includes("Working"), "the run to end");
		expect(text(run.screen())).toMatch(/↑\d+ ↓\d+/);

		fake.enqueue(
			{ toolCalls: [{ name: "bash", args: { command: "echo one; echo two" } }] },
			{
				toolCalls: [
					{
						name: "edit",
						args: { path: "hello.py", edits: [{ oldText: 'print("hello")', newText: 'print("goodbye")' }] },
					},
				],
			},
			{ text: "Edited." },
		);
		run.type("change it\r");
		// The last answer shows before its run ends: the next message is typed once nothing is working.
		await run.waitFor((s) => s.includes("Edited.") && !s.includes("Working"), "the tool run to finish");
		const screen = text(run.screen());
		expect(screen).toContain("$ echo one; echo two");
		expect(screen).toMatch(/Took \d+\.\ds/);
		expect(screen).toContain("edit hello.py");
		expect(screen).toContain('-2     print("hello")');
		expect(screen).toContain('+2     print("goodbye")');
		expect(readFileSync(join(project, "hello.py"), "utf8")).toContain("goodbye");

		fake.enqueue({ hang: true });
		run.type("wait forever\r");
		await run.waitFor((s) => s.includes("Working") && s.includes(" wait forever"), "a run that hangs");
		run.type("\x1b");
		await run.waitFor((s) => s.includes("Operation aborted") && !s.includes("Working"), "Esc to stop it");

		fake.enqueue({ text: "first answer", chunks: 10, chunkDelayMs: 150 }, { text: "steered answer" });
		run.type("first\r");
		await run.waitFor((s) => s.includes("Working"), "the first run");
		run.type("second thought\r");
		await run.waitFor(
			(s) => s.includes("Steering: second thought") && s.includes("↳ Alt+Up to edit all queued messages"),
			"the steer and pi's hint in the pending area",
		);
		await run.waitFor((s) => s.includes("steered answer"), "the steer delivered");
		const last = JSON.stringify(fake.requests.at(-1));
		expect(last).toContain("second thought");

		run.type("\x04");
		expect(await run.exited).toBe(0);

		const again = start("--continue");
		await again.waitFor((s) => s.includes("steered answer") && s.includes("fake-model"), "the same transcript");
		again.type("\x04");
		expect(await again.exited).toBe(0);
	}, 90_000);

	test("a click on a bash card expands it and another collapses it (pi's fullscreen mouse)", async () => {
		const run = start();
		await run.waitFor((s) => s.includes("fake-model • medium"), "pi's screen");
		fake.enqueue({ toolCalls: [{ name: "bash", args: { command: "seq 101 130" } }] }, { text: "Counted." });
		run.type("count\r");
		await run.waitFor((s) => s.includes("Counted.") && s.includes("earlier lines"), "the collapsed card");
		expect(text(run.screen())).not.toMatch(/^\s*101\s*$/m);
		// A left press and release on the card's title row, as the terminal reports them (SGR, 1-based).
		const row = run.screen().findIndex((line) => line.includes("$ seq 101 130")) + 1;
		run.type(`\x1b[<0;10;${row}M\x1b[<0;10;${row}m`);
		await run.waitFor((s) => /^\s*129\s*$/m.test(s) && !s.includes("earlier lines"), "the card expanded");
		// The card is taller now: its last line of output is on screen wherever the view went.
		const at = run.screen().findIndex((line) => /^\s*130\s*$/.test(line)) + 1;
		expect(at).toBeGreaterThan(0);
		run.type(`\x1b[<0;10;${at}M\x1b[<0;10;${at}m`);
		await run.waitFor((s) => s.includes("earlier lines"), "the card collapsed again");
		run.type("\x04");
		expect(await run.exited).toBe(0);
	}, 60_000);

	test("in a terminal that shows hyperlinks, an answer's https address is one; a link that says otherwise shows its address", async () => {
		const run = runInPty([process.execPath, MAIN], {
			env: { ...env, TERM_PROGRAM: "vscode" },
			cwd: project,
			cols: 120,
			rows: 40,
		});
		runs.push(run);
		const opened: string[] = [];
		run.term.parser.registerOscHandler(8, (payload) => {
			if (payload !== ";") opened.push(payload);
			return true;
		});
		await run.waitFor((s) => s.includes("fake-model • medium"), "pi's screen");
		fake.enqueue({ text: "See https://example.com/guide and [the docs](https://example.com/docs)." });
		run.type("links please\r");
		await run.waitFor((s) => s.includes("the docs (https://example.com/docs)"), "the link with its address shown");
		expect(text(run.screen())).toContain("See https://example.com/guide and");
		// Each repaint draws the link again: the addresses it opened, once each.
		expect([...new Set(opened)]).toEqual([";https://example.com/guide"]);
		run.type("\x04");
		expect(await run.exited).toBe(0);
	}, 60_000);

	test("--name, --model and --thinking apply to the session that opens; an unknown model is named", async () => {
		const run = start("--name", "flag session", "--model", "fake/fake-model", "--thinking", "high");
		// The footer follows the session's state, which may come before the last notice: both are waited for.
		await run.waitFor(
			(s) =>
				s.includes("~/proj (main) • flag session") &&
				s.includes("fake-model • high") &&
				s.includes("Thinking level: high"),
			"the flags applied",
		);
		// Status lines that follow each other replace each other (pi): the last one stays.
		expect(text(run.screen())).not.toContain("Session name set: flag session");
		expect(text(run.screen())).not.toContain("Model: fake-model");
		run.type("\x04");
		expect(await run.exited).toBe(0);

		const wrong = start("--model", "fake/nope");
		await wrong.waitFor((s) => s.includes("Error: no model fake/nope on this server"), "the refusal");
		wrong.type("\x04");
		expect(await wrong.exited).toBe(0);

		const themed = start("--theme", "solarized");
		await themed.waitFor((s) => s.includes('Unknown theme "solarized": using the system theme'), "the theme notice");
		themed.type("\x04");
		expect(await themed.exited).toBe(0);
	}, 60_000);

	test("scrolled up, the transcript stays on the same line while output grows; Ctrl+End follows again", async () => {
		const run = pty([], { cols: 100, rows: 20 });
		await run.waitFor((s) => s.includes("fake-model"), "the screen");
		for (const n of [1, 2, 3]) {
			fake.enqueue({ text: `answer ${n}\n\n${"line\n\n".repeat(6)}done ${n}` });
			run.type(`question ${n}\r`);
			await run.waitFor((s) => s.includes(`done ${n}`), `answer ${n}`);
		}
		run.type("\x1b[5~");
		await run.waitFor((s) => s.includes("Jump to latest message"), "the jump-to-latest pill");
		// The last column is the scroll bar, shown while scrolling.
		const topLines = () =>
			run
				.screen()
				.slice(0, 12)
				.map((l) => l.slice(0, 99).trimEnd());
		const top = topLines();
		// The footer counts output tokens when an answer has ended: a count of its own marks the fourth's end.
		fake.enqueue({
			text: `more output ${"x ".repeat(200)} end of more`,
			chunks: 8,
			chunkDelayMs: 80,
			usage: { prompt: 100, completion: 777 },
		});
		run.type("question 4\r");
		await run.waitFor((s) => /↓837\b/.test(s) && !s.includes("Working"), "the fourth answer ended");
		expect(topLines()).toEqual(top);
		run.type("\x1b[1;5F");
		await run.waitFor((s) => s.includes("end of more") && !s.includes("Jump to latest"), "following the end again");
		// Ctrl+Up jumps from message to message (pi's prompt marks): a user message comes to the top.
		const topPrompt = (s: string) => /^ question (\d)/m.exec(s.split("\n").slice(0, 2).join("\n"))?.[1];
		run.type("\x1b[1;5A");
		await run.waitFor((s) => topPrompt(s) !== undefined, "a message at the top");
		const first = Number(topPrompt(text(run.screen())));
		run.type("\x1b[1;5A");
		await run.waitFor((s) => Number(topPrompt(s)) === first - 1, "the message before it at the top");
		run.type("\x04");
		expect(await run.exited).toBe(0);
	}, 60_000);

	test("a long conversation opens at its end; scrolling to the top loads older pages above, in order", async () => {
		// The stores are written directly: no server may have them open meanwhile (the last test's still runs).
		await stopDeviceServer(env.P2_DATA_DIR!);
		const id = seedConversation(env.P2_DATA_DIR!, project, 600);
		const run = pty(["--session", id], { cols: 100, rows: 20 });
		await run.waitFor((s) => s.includes("Answer 599:"), "the end of the conversation");
		// Ctrl+Home goes to the top of what is loaded; an older page loads above it, so it is pressed until the first.
		await run.typeUntil("\x1b[1;5H", (s) => / question 0\s*\n/.test(s), "the first question");
		expect(text(run.screen())).toContain("Answer 1:");
		run.type("\x04");
		expect(await run.exited).toBe(0);
	}, 60_000);

	test("a failing provider shows pi's retry countdown in the editor border, then the answer", async () => {
		const run = start("--continue");
		await run.waitFor((s) => s.includes("fake-model"), "the screen");
		fake.enqueue({ status: 500, error: "Fake internal server error" }, { text: "recovered after retry" });
		run.type("try again\r");
		await run.waitFor((s) => /Retrying \(1\/\d+\) in \d+s\.\.\. \(escape to cancel\)/.test(s), "the retry countdown");
		await run.waitFor((s) => s.includes("recovered after retry"), "the answer after the retry", 20_000);
		run.type("\x04");
		expect(await run.exited).toBe(0);
	}, 60_000);

	test("transcript search (pi-tui's, Ctrl+Shift+F) finds text in the transcript", async () => {
		const run = start();
		await run.waitFor((s) => s.includes("fake-model"), "the screen");
		fake.enqueue({ text: "the word is zanzibar" });
		run.type("say it\r");
		await run.waitFor((s) => s.includes("the word is zanzibar"), "the answer");
		run.type("\x1b[102;6u"); // Ctrl+Shift+F as a CSI u key
		await run.waitFor((s) => s.includes("Find in transcript"), "the search box");
		run.type("zanzibar");
		// pi-tui's search box: the query and "current/total" matches.
		await run.waitFor((s) => /│ zanzibar +1\/1 │/.test(s), "the search box with its match count");
		run.type("\x1b");
		await run.waitFor((s) => !s.includes("Shift+Enter · ↓ Enter"), "the search box closed");
		run.type("\x04");
		expect(await run.exited).toBe(0);
	}, 60_000);

	test("/ lists the commands; /reload swaps the UI and keeps the session; unknown slash text is a message; /quit", async () => {
		const run = start();
		await run.waitFor((s) => s.includes("fake-model"), "the screen");
		fake.enqueue({ text: "kept across the reload" });
		run.type("remember this\r");
		await run.waitFor((s) => s.includes("kept across the reload"), "the answer");
		run.type("/");
		// pi's list order: /settings first.
		await run.waitFor((s) => s.includes("→ settings") && s.includes("model"), "the command list");
		const beforeReload = run.raw().length;
		run.type("rel\t\r");
		// The new UI takes the alternate screen again once the old one has left it.
		await run.waitForOutput("\x1b[?1049h", beforeReload, "the new UI on the screen");
		await run.waitFor(
			(s) => s.includes("kept across the reload") && s.includes("fake-model"),
			"the same session after /reload",
		);
		const before = fake.requests.length;
		fake.enqueue({ text: "slash text went to the model" });
		run.type("/nonsense is a message\r");
		await run.waitFor((s) => s.includes("slash text went to the model"), "the answer to the slash text");
		expect(JSON.stringify(fake.requests.slice(before))).toContain("/nonsense is a message");
		run.type("/name reload demo\r");
		await run.waitFor(
			(s) => s.includes("• reload demo") && s.includes("Session name set: reload demo"),
			"the new name",
		);
		run.type("/name\r");
		await run.waitFor((s) => s.includes("Session name: reload demo"), "pi's answer to /name: the name");
		// /new: an empty transcript in a new session, the old one's text gone from the screen.
		run.type("\x15unsent draft");
		run.type("\x15/new\r");
		await run.waitFor(
			(s) => s.includes("✓ New session started") && !s.includes("kept across the reload"),
			"a new session",
		);
		fake.enqueue({ text: "answer in the new session" });
		run.type("hello new\r");
		await run.waitFor((s) => s.includes("answer in the new session"), "the new session working");
		run.type("/quit\r");
		expect(await run.exited).toBe(0);
	}, 60_000);
});
