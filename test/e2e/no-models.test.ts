import { expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { removeHome } from "../support/device-server.ts";
import { runInPty } from "../support/pty.ts";

const MAIN = join(import.meta.dir, "..", "..", "src", "main.ts");

test("with no model configured, the owner is told where to configure one, as pi warns at start", async () => {
	const home = mkdtempSync(join(tmpdir(), "p2-nomodels-"));
	try {
		const env = { PATH: process.env.PATH ?? "", HOME: home, P2_DATA_DIR: join(home, "data"), TERM: "xterm-256color" };
		const run = runInPty([process.execPath, MAIN], { env, cwd: home, cols: 120, rows: 30 });
		await run.waitFor((s) => s.includes("Warning: No models available."), "the warning");
		// It names the server's models.json (this device's server: its own data directory).
		expect(run.screen().join(" ").replace(/\s+/g, " ")).toContain(
			`add a provider to models.json in the server's data directory: ${join(home, "data", "models.json")}`,
		);
		expect(run.screen().join("\n")).toContain("unknown");
		// A send is refused with the reason (it is not retried forever) and, as pi does, the editor is left empty:
		// the text is in the editor's history, where Up finds it.
		run.type("hello there\r");
		await run.waitFor((s) => s.includes("Error: No models available. Use /login"), "the refusal");
		await run.waitFor((s) => !s.includes("hello there"), "the editor cleared, nothing pending");
		run.type("\x1b[A");
		await run.waitFor((s) => s.includes("hello there"), "the text back from the editor's history");
		run.type("\x03");
		await run.waitFor((s) => !s.includes("hello there"), "the editor cleared by Ctrl+C");
		run.type("\x04");
		expect(await run.exited).toBe(0);
	} finally {
		await removeHome(home);
	}
}, 30_000);
