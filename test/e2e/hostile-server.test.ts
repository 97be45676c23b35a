/**
 * Issues 16 and 36, end to end: a p2 server that serves an attack bundle (or refuses to serve one), and the
 * real p2 launcher in a pseudo-terminal. What the worker wrote must never reach the terminal raw, a fatal
 * start-up error must end p2 with one line, and no flood of output keeps the emergency exit from ending p2.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SERVER_INFO_FILE } from "../../src/protocol/server-info.ts";
import { defaultPlugins } from "../../src/server/plugins.ts";
import { type P2Server, startServer } from "../../src/server/server.ts";
import { MAIN } from "../support/fake-home.ts";
import { runInPty } from "../support/pty.ts";
import { waitUntil } from "../support/wait.ts";

/** What the launcher's own screen says when the UI wrote more than a terminal can take. */
const TOLD = "The UI wrote more than a terminal can take";
/** How long p2 may take to end after three Ctrl+C, on a busy machine (it takes milliseconds). */
const EXIT_BOUND_MS = 5000;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
	for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempHome(): { home: string; data: string; env: Record<string, string> } {
	const home = mkdtempSync(join(tmpdir(), "p2-hostile-e2e-"));
	const data = join(home, "data");
	mkdirSync(data, { mode: 0o700 });
	cleanups.push(() => rmSync(home, { recursive: true, force: true }));
	return { home, data, env: { PATH: process.env.PATH ?? "", HOME: home, P2_DATA_DIR: data, TERM: "xterm-256color" } };
}

/** This device's server (found through the data directory) serving `source` as its UI. */
async function serveBundle(data: string, source: string): Promise<P2Server> {
	const server = await startServer({
		dataDir: data,
		plugins: defaultPlugins(),
		env: {},
		advertise: true,
		bundle: async () => ({ source, hash: new Bun.CryptoHasher("sha256").update(source).digest("hex") }),
	});
	cleanups.push(() => server.stop());
	return server;
}

describe("a hostile server against the real launcher", () => {
	test("the worker's problems at exit reach the terminal with their controls visible, and the terminal is put back", async () => {
		const { data, env, home } = tempHome();
		const attack = `globalThis.p2Guest = { start(host) {
			const out = (data) => host.post({ kind: "output", data });
			out("\\x1b[?1049h\\x1b[?1000h\\x1b[5 qATTACK-UP");
			host.post({ kind: "log", level: "error", text: "\\x1b]52;c;cHduZWQ=\\x07\\x1b]0;owned-title\\x07" });
			host.post({ kind: "error", message: "\\x1b[?1049h\\x1b[?1003hstill-raw" });
			host.post({ kind: "ready" });
			setTimeout(() => host.post({ kind: "exit", code: 3 }), 50);
		} };`;
		await serveBundle(data, attack);
		const run = runInPty([process.execPath, MAIN], { env, cwd: home, cols: 100, rows: 30 });
		const clipboard: string[] = [];
		run.term.parser.registerOscHandler(52, (payload) => {
			clipboard.push(payload);
			return true;
		});
		let title = "";
		run.term.onTitleChange((t) => {
			title = t;
		});
		expect(await run.exited).toBe(3);
		const raw = run.raw();
		const afterExit = raw.slice(raw.lastIndexOf("\x1b[?1049l"));
		expect(afterExit).toContain("p2: ");
		expect(afterExit).toContain("␛]52;c;cHduZWQ=␇");
		expect(afterExit).toContain("still-raw");
		expect(afterExit).not.toContain("\x1b]");
		expect(afterExit).not.toContain("\x1b[?1049h");
		expect(afterExit).not.toContain("\x1b[?1003h");
		expect(clipboard).toEqual([]);
		expect(title).not.toContain("owned");
		expect(run.term.buffer.active.type).toBe("normal");
		expect(run.term.modes.mouseTrackingMode).toBe("none");
		expect(raw.lastIndexOf("\x1b[0 q")).toBeGreaterThan(raw.lastIndexOf("\x1b[5 q"));
	}, 30_000);

	test("the UI's hyperlinks: only one whose text is its https address reaches a terminal that takes links", async () => {
		const { data, env, home } = tempHome();
		const link = (uri: string, text: string) => `\x1b]8;;${uri}\x1b\\${text}\x1b]8;;\x1b\\`;
		const lines = [
			link("https://good.example/page", "\x1b[4mhttps://good.example/page\x1b[24m"),
			link("https://evil.example/steal", "https://bank.example/login"),
			link("https://evil.example/steal", "your bank"),
			link("http://plain.example", "http://plain.example"),
			link("javascript:alert(1)", "javascript:alert(1)"),
			link("https://ctl.example/\x07x", "https://ctl.example/x"),
			link("https://bank.example@evil.example", "https://bank.example@evil.example"),
			link("https://hidden.example", "\x1b[8mhttps://hidden.example\x1b[28m"),
			// An open link never closed, then the launcher's own mode turned off by the UI.
			"\x1b]8;;https://open.example\x1b\\https://open.example LINE-END\x1b[?2031l",
		];
		const attack = `globalThis.p2Guest = { start(host) {
			host.post({ kind: "output", data: ${JSON.stringify(`\x1b[?1049h\x1b[H${lines.join("\r\n")}\r\nATTACK-DONE`)} });
			host.post({ kind: "ready" });
		} };`;
		await serveBundle(data, attack);
		const run = runInPty([process.execPath, MAIN], {
			env: { ...env, TERM_PROGRAM: "vscode" },
			cwd: home,
			cols: 100,
			rows: 30,
		});
		const opened: string[] = [];
		run.term.parser.registerOscHandler(8, (payload) => {
			opened.push(payload);
			return true;
		});
		try {
			await run.waitFor((s) => s.includes("ATTACK-DONE"), "the UI's lines");
			const screen = run.screen().join("\n");
			for (const text of ["https://good.example/page", "https://bank.example/login", "your bank", "LINE-END"]) {
				expect(screen).toContain(text);
			}
			// Opens and closes as the terminal saw them: the good link and its close, nothing else.
			expect(opened.filter((p) => p !== ";")).toEqual([";https://good.example/page"]);
			expect(run.raw()).not.toContain("\x1b[?2031l");
		} finally {
			run.kill();
			await run.exited;
		}
	}, 30_000);

	test("an output flood to a slow terminal: three Ctrl+C still end p2 at once, and the person is told", async () => {
		const { data, env, home } = tempHome();
		// 1 MiB output messages as fast as the worker can post them, for longer than the test waits.
		const attack = `globalThis.p2Guest = { start(host) {
			host.post({ kind: "ready" });
			const chunk = "x".repeat(1024 * 1024);
			const started = Date.now();
			while (Date.now() - started < 30000) host.post({ kind: "output", data: chunk });
		} };`;
		await serveBundle(data, attack);
		// A terminal that reads about 20 MB a second (a busy emulator): its reading holds up this process too.
		const BYTES_PER_MS = 20_000;
		let received = 0;
		let shown = "";
		const decoder = new TextDecoder();
		const proc = Bun.spawn([process.execPath, MAIN], {
			cwd: home,
			env,
			terminal: {
				cols: 100,
				rows: 30,
				data(_t, bytes) {
					received += bytes.length;
					if (shown.length < 16 * 1024 * 1024) shown += decoder.decode(bytes, { stream: true });
					const until = performance.now() + bytes.length / BYTES_PER_MS;
					while (performance.now() < until) {}
				},
			},
		});
		cleanups.push(() => proc.kill(9));
		await waitUntil(
			() => received > 4 * 1024 * 1024 || shown.includes(TOLD),
			"the flood to reach the terminal",
			20_000,
		);
		proc.terminal?.write("\x03\x03\x03");
		// Before issue 36 p2 went on writing the flood (some 1 GiB) and did not end for as long as the test waited.
		const ended = await Promise.race([proc.exited, Bun.sleep(EXIT_BOUND_MS).then(() => "still running")]);
		expect(ended).toBe(130);
		expect(shown).toContain(TOLD);
		// Nothing near the flood reached the terminal: what a few seconds of the UI's budget allow, not gigabytes.
		expect(received).toBeLessThan(64 * 1024 * 1024);
	}, 60_000);

	test("a fatal start-up error (the server redirects the UI bundle) ends p2 with one clear line and a non-zero status", async () => {
		const { data, env, home } = tempHome();
		// A server that says it is this device's, answers the launcher's probe, then redirects the bundle.
		const fake = Bun.serve({
			hostname: "127.0.0.1",
			port: 0,
			fetch: (req) =>
				req.method === "HEAD"
					? new Response(null, { status: 200 })
					: new Response(null, { status: 302, headers: { location: "https://evil.example/bundle.js" } }),
		});
		cleanups.push(() => fake.stop(true));
		const token = "a".repeat(43);
		writeFileSync(
			join(data, SERVER_INFO_FILE),
			JSON.stringify({
				origin: `http://127.0.0.1:${fake.port}`,
				port: fake.port,
				pid: process.pid,
				deviceToken: token,
			}),
			{ mode: 0o600 },
		);
		const run = runInPty([process.execPath, MAIN], { env, cwd: home, cols: 100, rows: 30 });
		expect(await run.exited).toBe(1);
		const lines = run
			.screen()
			.map((l) => l.trim())
			.filter(Boolean);
		expect(lines).toEqual([`p2: http://127.0.0.1:${fake.port}: answered with a redirect, which p2 never follows`]);
	}, 30_000);
});
