import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { deviceBundleKey } from "../../src/host/bundle-cache.ts";
import { configDir } from "../../src/host/config-dir.ts";
import { fakeHomeForFile, MAIN } from "../support/fake-home.ts";
import { runInPty } from "../support/pty.ts";

const h = fakeHomeForFile("p2-startup-e2e-");

/** A project with pi's context file, and pi's settings.json (none for undefined). */
function setUp(settings: Record<string, unknown> | undefined): string {
	const project = join(h.home, "proj");
	mkdirSync(project, { recursive: true });
	writeFileSync(join(project, "AGENTS.md"), "# Rules of this project\n");
	const agent = join(h.home, ".pi", "agent");
	mkdirSync(agent, { recursive: true });
	if (settings) writeFileSync(join(agent, "settings.json"), JSON.stringify(settings));
	else rmSync(join(agent, "settings.json"), { force: true });
	return project;
}

describe("start-up: pi's loaded resources under the header, and quietStartup", () => {
	test("[Context] lists the session's context files; Ctrl+O shows their paths", async () => {
		const project = setUp(undefined);
		const run = runInPty([process.execPath, MAIN], { env: h.env, cwd: project, cols: 120, rows: 40 });
		try {
			await run.waitFor((s) => /^\[Context\]\n {2}AGENTS\.md$/m.test(s), "pi's [Context] with the short name");
			const screen = run.screen().join("\n");
			expect(screen).toContain("Press ctrl+o to show full startup help and loaded resources.");
			const lines = screen.split("\n");
			expect(lines.indexOf("[Context]")).toBeGreaterThan(lines.findIndex((l) => l.includes("Press ctrl+o")));
			run.type("\x0f");
			await run.waitFor((s) => /^\[Context\]\n {2}~\/proj\/AGENTS\.md$/m.test(s), "the full path (Ctrl+O)");
		} finally {
			run.kill();
			await run.exited;
		}
	}, 40_000);

	for (const [quiet, header] of [
		[true, false],
		["header", true],
	] as const) {
		test(`quietStartup ${JSON.stringify(quiet)}: no resources listed${header ? ", the header kept" : ", no header"}`, async () => {
			const project = setUp({ quietStartup: quiet });
			const run = runInPty([process.execPath, MAIN], { env: h.env, cwd: project, cols: 120, rows: 40 });
			try {
				await run.waitFor((s) => s.includes("fake-model"), "the chat");
				h.fake.enqueue({ text: "Started." });
				run.type("go\r");
				await run.waitFor((s) => s.includes("Started."), "an answer (the session's state has arrived)");
				const screen = run.screen().join("\n");
				expect(screen).not.toContain("[Context]");
				expect(screen.includes("escape interrupt")).toBe(header);
				if (header) expect(screen).toContain("Press ctrl+o to show full startup help.");
			} finally {
				run.kill();
				await run.exited;
			}
		}, 40_000);
	}
});

describe("start-up: the UI kept from last time", () => {
	test("a kept UI the server no longer serves is never started: the server's runs, and is kept in its place", async () => {
		const project = setUp(undefined);
		const kept = join(
			configDir(h.env),
			"bundles",
			`${new Bun.CryptoHasher("sha256").update(deviceBundleKey(h.env.P2_DATA_DIR!)).digest("hex").slice(0, 32)}.js`,
		);
		mkdirSync(dirname(kept), { recursive: true });
		const stale = `globalThis.p2Guest = { start(host) { host.post({ kind: "output", data: "STALE UI STARTED" }); } };`;
		writeFileSync(kept, stale, { mode: 0o600 });
		const run = runInPty([process.execPath, MAIN], { env: h.env, cwd: project, cols: 120, rows: 40 });
		try {
			await run.waitFor((s) => s.includes("fake-model"), "the server's UI");
			expect(run.raw()).not.toContain("STALE UI STARTED");
			expect(readFileSync(kept, "utf8")).not.toBe(stale);
			expect(readFileSync(kept, "utf8")).toContain("p2Guest");
		} finally {
			run.kill();
			await run.exited;
		}
	}, 40_000);
});
