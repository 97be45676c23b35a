/**
 * Issue 16, end to end: a p2 server that serves an attack bundle (or refuses to serve one), and the real p2
 * launcher in a pseudo-terminal. What the worker wrote must never reach the terminal raw, and a fatal
 * start-up error must end p2 with one line.
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
