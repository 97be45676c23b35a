import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { parseLaunchArgs } from "../../src/host/args.ts";
import { type LauncherOptions, runLauncher } from "../../src/host/launcher.ts";
import { DEVICE_TOKEN_HEADER } from "../../src/protocol/server-info.ts";
import { FakeTerminal } from "../support/fake-terminal.ts";
import { startTestServer, type TestServer } from "../support/p2-server.ts";
import { waitUntil } from "../support/wait.ts";

let server: TestServer;
beforeAll(async () => {
	server = await startTestServer();
});
afterAll(() => server.stop());

function launch(
	bundle: string,
	terminal: FakeTerminal,
	limits = {},
	home = "/home/secret",
	extra: Partial<LauncherOptions> = {},
) {
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
		...extra,
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

	test("a worker that hangs is replaced, with the last snapshot (the draft) handed over and a connection of its own", async () => {
		const bundle = `globalThis.p2Guest = { start(host) {
			const out = (data) => host.post({ kind: "output", data });
			out("REASON:" + host.start.reason + ":" + (host.start.snapshot ?? "none") + ";");
			host.onMessage((m) => {
				if (m.kind === "connection" && m.state === "open") host.post({ kind: "frame", text: JSON.stringify({ t: "open", h: 1, object: "access", version: 1, input: {} }) });
				if (m.kind === "frame") out("FRAME:" + host.start.reason + ":" + JSON.parse(m.text).t + ";");
				if (m.kind === "snapshotRequest") {
					host.post({ kind: "snapshot", data: '{"version":1,"draft":"kept"}' });
					host.post({ kind: "output", data: "SNAPSHOT-SENT;" });
				}
				if (m.kind === "input" && m.data === "h") setTimeout(() => { for (;;) {} }, 0);
				if (m.kind === "input" && m.data === "q") host.post({ kind: "exit", code: 0 });
			});
			host.post({ kind: "ready" });
		} };`;
		const terminal = new FakeTerminal();
		const result = launch(bundle, terminal, { heartbeatMs: 100, heartbeatTimeoutMs: 2000 }, "/home/secret", {
			snapshotMs: 50,
		});
		await terminal.until("REASON:start:none;");
		await terminal.until("FRAME:start:snapshot;");
		// The launcher keeps the snapshot as it arrives, before the output that follows it.
		await terminal.until("SNAPSHOT-SENT;");
		terminal.onInput?.("h");
		await terminal.until('REASON:restart:{"version":1,"draft":"kept"};');
		// The new worker opens its objects afresh: the old one's are gone from the server, not in its way.
		await terminal.until("FRAME:restart:snapshot;");
		expect(terminal.output).not.toContain("FRAME:restart:refused;");
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
		// Two checks found the same bundle: neither replaced the UI.
		await waitUntil(() => asked.filter((h) => h === "h1").length >= 2, "two checks for a newer bundle");
		expect(terminal.output).not.toContain("UI-1:reload");
		served = { source: version("2"), hash: "h2" };
		await terminal.until('UI-2:reload:{"version":1,"draft":"d-1"};');
		terminal.onInput?.("q");
		expect((await result).code).toBe(0);
		expect(terminal.output.match(/UI-2:reload/g)?.length).toBe(1);
	}, 20000);

	test("a reload asks for a handover snapshot (the kept ones are not); a successor that fails gives the screen back with a redraw", async () => {
		const first = `globalThis.p2Guest = { start(host) {
			host.post({ kind: "output", data: "UI-1;" });
			host.onMessage((m) => {
				if (m.kind === "snapshotRequest") {
					host.post({ kind: "output", data: m.handover ? "HANDOVER;" : "KEPT;" });
					host.post({ kind: "snapshot", data: '{"version":1,"draft":"d"}' });
				}
				if (m.kind === "redraw") host.post({ kind: "output", data: "REDRAW;" });
				if (m.kind === "input" && m.data === "q") host.post({ kind: "exit", code: 0 });
			});
			host.post({ kind: "ready" });
		} };`;
		const broken = `globalThis.p2Guest = { start() { throw new Error("broken UI"); } };`;
		let served = { source: first, hash: "h1" };
		const terminal = new FakeTerminal();
		const result = runLauncher({
			args: parseLaunchArgs([]),
			target: {
				kind: "device",
				origin: () => server.server.origin,
				credentials: () => ({ [DEVICE_TOKEN_HEADER]: server.server.deviceToken }),
			},
			env: { TERM: "xterm-256color" },
			fetchBundle: async (running) => (running === served.hash ? undefined : served),
			bundleCheckMs: 150,
			snapshotMs: 50,
			terminal: terminal as never,
		});
		await terminal.until("UI-1;");
		await terminal.until("KEPT;");
		expect(terminal.output).not.toContain("HANDOVER;");
		served = { source: broken, hash: "h2" };
		await terminal.until("HANDOVER;");
		await terminal.until("REDRAW;", terminal.output.indexOf("HANDOVER;"));
		terminal.onInput?.("q");
		expect((await result).code).toBe(0);
	}, 20000);

	test("the session the UI reports is handed to the launcher's memory; a malformed one is not", async () => {
		const bundle = `globalThis.p2Guest = { start(host) {
			host.onMessage((m) => {
				if (m.kind === "input" && m.data === "q") host.post({ kind: "exit", code: 0 });
			});
			host.post({ kind: "output", data: "LAST:" + (host.start.args.lastSession ?? "none") + ";" });
			host.post({ kind: "navigation", session: "../../etc/passwd" });
			host.post({ kind: "navigation", session: "0a0a0a0a-0000-4000-8000-000000000001" });
			host.post({ kind: "output", data: "NAVIGATED;" });
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
		// Messages are handled in order: the output after the navigations is shown once they were.
		await terminal.until("NAVIGATED;");
		expect(seen).toEqual(["0a0a0a0a-0000-4000-8000-000000000001"]);
		terminal.onInput?.("q");
		expect((await result).code).toBe(0);
	}, 20000);

	test("the UI's exit transcript and the resume hint come back filtered, for the session it showed", async () => {
		const bundle = `globalThis.p2Guest = { start(host) {
			host.onMessage((m) => {
				if (m.kind !== "input") return;
				host.post({ kind: "exitOutput", text: "\\x1b[1mkept\\x1b[22m\\n\\x1b]0;pwned\\x07\\x1b[2Jgone", resumable: m.data === "q" });
				host.post({ kind: "exit", code: 0 });
			});
			host.post({ kind: "navigation", session: "0a0a0a0a-0000-4000-8000-000000000001" });
			host.post({ kind: "output", data: "NAVIGATED;" });
			host.post({ kind: "ready" });
		} };`;
		for (const [key, resumable] of [
			["q", true],
			["x", false],
		] as const) {
			const terminal = new FakeTerminal();
			const result = launch(bundle, terminal);
			await terminal.until("NAVIGATED;");
			terminal.onInput?.(key);
			const { code, farewell } = await result;
			expect(code).toBe(0);
			expect(farewell).toStartWith("\x1b[1mkept\x1b[22m\x1b[0m\n␛]0;pwned␇␛[2Jgone\n");
			if (resumable) expect(farewell).toEndWith("p2 --session 0a0a0a0a-0000-4000-8000-000000000001\n");
			else expect(farewell).not.toContain("To resume");
			// Nothing of it went to the screen while the UI ran: it is printed after the terminal is back.
			expect(terminal.output).not.toContain("kept");
		}
	}, 20000);

	test("the launcher's keys never reach the worker, unless its own text input asked for every key", async () => {
		const bundle = `globalThis.p2Guest = { start(host) {
			const out = (data) => host.post({ kind: "output", data });
			host.onMessage((m) => {
				if (m.kind === "ask") { out("ASK:" + m.question + ";"); host.post({ kind: "answer", id: m.id, text: null }); }
				if (m.kind === "actionDone") out("DONE:" + m.action + ":" + m.detail + ";");
				if (m.kind === "input") {
					if (m.data === "s") host.post({ kind: "keyContext", suspendPrivileged: true });
					out("IN:" + JSON.stringify(m.data) + ";");
					if (m.data === "q") host.post({ kind: "exit", code: 0 });
				}
			});
			host.post({ kind: "ready" });
			out("READY;");
		} };`;
		const terminal = new FakeTerminal();
		const result = launch(bundle, terminal);
		await terminal.until("READY;");
		terminal.onInput?.("\x18");
		await terminal.until("ASK:copyText;");
		await terminal.until("DONE:copy.key:Nothing to copy;");
		expect(terminal.output).not.toContain('IN:"\\u0018"');
		terminal.onInput?.("s");
		// The key context is posted before the echo, so the launcher has it once the echo shows.
		await terminal.until('IN:"s";');
		terminal.onInput?.("\x18");
		await terminal.until('IN:"\\u0018";');
		terminal.onInput?.("q");
		expect((await result).code).toBe(0);
	}, 20000);
});
