import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MAIN } from "../support/fake-home.ts";
import { runInPty } from "../support/pty.ts";
import { seedConversation } from "../support/seed.ts";

let homes: string[] = [];
afterEach(() => {
	for (const home of homes) rmSync(home, { recursive: true, force: true });
	homes = [];
});

/** A home with a private data directory and nothing of the person's own. */
function newHome(): { home: string; data: string; agent: string; env: Record<string, string> } {
	const home = mkdtempSync(join(tmpdir(), "p2-file-problems-"));
	homes.push(home);
	const data = join(home, "data");
	mkdirSync(data, { mode: 0o700 });
	const env = { PATH: process.env.PATH ?? "", HOME: home, P2_DATA_DIR: data, TERM: "xterm-256color" };
	return { home, data, agent: join(home, ".pi", "agent"), env };
}

/** The server's three files, each broken its own way. */
function breakServerFiles(data: string): void {
	writeFileSync(join(data, "models.json"), '{\n  "providers": {\n    "local": ,\n  }\n}\n');
	writeFileSync(join(data, "settings.json"), JSON.stringify({ defaultModel: { provider: "x", id: 3 } }));
	writeFileSync(join(data, "tui.json"), "");
}

describe("what the person reads about a file p2 could not use", () => {
	test("the server's models.json, settings.json and tui.json: each named with its path and what is wrong", async () => {
		const { home, data, env } = newHome();
		breakServerFiles(data);
		const run = runInPty([process.execPath, MAIN], { env, cwd: home, cols: 300, rows: 40 });
		try {
			await run.waitFor((s) => s.includes("Warning: No models available."), "the start");
			await run.waitFor((s) => s.includes(`Warning: tui.json (${join(data, "tui.json")}): is empty`), "tui.json");
			const screen = run.screen().join("\n");
			expect(screen).toContain(
				`Error: models.json (${join(data, "models.json")}): not valid JSON at line 3, column 14 (unexpected ",")`,
			);
			expect(screen).toContain(
				`Error: settings.json (${join(data, "settings.json")}): defaultModel.id must be a string (was a number)`,
			);
		} finally {
			run.kill();
			await run.exited;
		}
	}, 30_000);

	test("the server's log says the same, with the path, before it listens", async () => {
		const { data, env } = newHome();
		breakServerFiles(data);
		const serve = Bun.spawn([process.execPath, MAIN, "serve", "--port", "0"], { env, stdout: "pipe", stderr: "pipe" });
		try {
			const reader = serve.stdout.getReader();
			let out = "";
			while (!out.includes("p2 server listening on")) {
				const { value, done } = await reader.read();
				if (done) throw new Error(`p2 serve ended: ${out}`);
				out += new TextDecoder().decode(value);
			}
			serve.kill();
			const log = await new Response(serve.stderr).text();
			expect(log).toContain(
				`p2 server: models.json (${join(data, "models.json")}): not valid JSON at line 3, column 14 (unexpected ",")`,
			);
			expect(log).toContain(
				`p2 server: settings.json (${join(data, "settings.json")}): defaultModel.id must be a string (was a number)`,
			);
			expect(log).toContain(`p2 server: tui.json (${join(data, "tui.json")}): is empty`);
		} finally {
			serve.kill();
			await serve.exited;
		}
	}, 30_000);

	test("pi's settings.json, keybindings.json and themes: warned at start even with quietStartup, and when one breaks while p2 runs", async () => {
		const { home, agent, env } = newHome();
		mkdirSync(join(agent, "themes"), { recursive: true });
		writeFileSync(join(agent, "settings.json"), JSON.stringify({ quietStartup: true, hideThinkingBlock: "yes" }));
		writeFileSync(join(agent, "keybindings.json"), "{ nope");
		writeFileSync(join(agent, "themes", "mine.json"), "{");
		const run = runInPty([process.execPath, MAIN], { env, cwd: home, cols: 300, rows: 40 });
		try {
			await run.waitFor((s) => s.includes("Warning: No models available."), "the start");
			await run.waitFor((s) => s.includes("[Theme conflicts]"), "the theme's problem");
			const screen = run.screen().join("\n");
			// quietStartup hides pi's header, not its warnings.
			expect(screen).not.toContain("escape interrupt");
			expect(screen).toContain(
				"Warning: Invalid settings file settings.json in pi's agent directory: invalid hideThinkingBlock",
			);
			expect(screen).toContain(
				"Warning: Invalid keybindings file keybindings.json in pi's agent directory: not valid JSON",
			);
			expect(screen).toContain("[Theme conflicts] themes/mine.json in pi's agent directory: not valid JSON");
			// The worker never learns where the person's files are.
			expect(screen).not.toContain(home);

			// Fixed, then broken another way while p2 runs: the launcher sends the preferences again, the UI says it.
			writeFileSync(join(agent, "settings.json"), JSON.stringify({ quietStartup: true }));
			writeFileSync(join(agent, "keybindings.json"), JSON.stringify({ "app.tools.expand": 5 }));
			await run.waitFor(
				(s) =>
					s.includes(
						"Warning: Invalid keybindings file keybindings.json in pi's agent directory: invalid keys for app.tools.expand",
					),
				"the new problem",
			);
		} finally {
			run.kill();
			await run.exited;
		}
	}, 30_000);

	test("a session whose directory was deleted: said at open and at a send; ! names it; /new starts one where p2 started", async () => {
		const { home, data, env } = newHome();
		const gone = join(home, "old-project");
		mkdirSync(gone);
		const session = seedConversation(data, gone, 2);
		rmSync(gone, { recursive: true });
		const run = runInPty([process.execPath, MAIN, "--session", session], { env, cwd: home, cols: 300, rows: 40 });
		try {
			await run.waitFor(
				(s) =>
					s.includes(
						`Warning: This session's directory no longer exists: ${gone}. Type /new to start a session in ${home}, or /new <path> for another directory.`,
					),
				"the warning at open",
			);
			run.type("hello there\r");
			const refusal = `Error: This session's directory no longer exists: ${gone}. Use /new <path> to start a session in another directory.`;
			await run.waitFor((s) => s.includes(refusal), "the refused send");
			await run.waitFor((s) => /^hello there\s*$/m.test(s), "the text back in the editor");
			run.type("\x15");
			run.type("!ls\r");
			await run.waitFor((s) => s.split(refusal).length === 3, "the refused command, in the same words");
			expect(run.screen().join("\n")).not.toContain("posix_spawn");
			run.type("\x15");
			run.type("/new\r");
			await run.waitFor((s) => s.includes("✓ New session started"), "the new session");
			run.type("!echo it-runs-here\r");
			await run.waitFor((s) => s.includes("$ echo it-runs-here") && s.includes(" it-runs-here"), "the command ran");
		} finally {
			run.kill();
			await run.exited;
		}
	}, 40_000);
});
