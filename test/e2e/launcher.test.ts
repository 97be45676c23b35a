import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readServerInfo, SERVER_INFO_FILE } from "../../src/protocol/server-info.ts";
import { removeHome, stopDeviceServer } from "../support/device-server.ts";
import { type PtyRun, runInPty } from "../support/pty.ts";
import { waitUntil } from "../support/wait.ts";

const MAIN = join(import.meta.dir, "..", "..", "src", "main.ts");
let home: string;
let env: Record<string, string>;
beforeAll(() => {
	home = mkdtempSync(join(tmpdir(), "p2-e2e-"));
	env = {
		PATH: process.env.PATH ?? "",
		HOME: home,
		P2_DATA_DIR: join(home, "data"),
		TERM: "xterm-256color",
		SECRET_TOKEN: "must-not-reach-the-worker",
	};
});
afterAll(() => removeHome(home));

function expectRestored(run: PtyRun) {
	const modes = run.term.modes;
	expect(run.term.buffer.active.type).toBe("normal");
	expect(modes.mouseTrackingMode).toBe("none");
	expect(modes.sendFocusMode).toBe(false);
	expect(modes.bracketedPasteMode).toBe(false);
	expect(modes.wraparoundMode).toBe(true);
}

describe("p2 in a pseudo-terminal", () => {
	test("opens the guest's screen, takes typing, quits with Ctrl+C twice and restores the terminal", async () => {
		const run = runInPty([process.execPath, MAIN, "hello"], { env });
		await run.waitFor((s) => s.includes("this device") && s.includes("hello"), "the first screen");
		expect(run.term.buffer.active.type).toBe("alternate");
		run.type(" world");
		await run.waitFor((s) => s.includes("hello world"), "typed text");
		run.type("\x03");
		await run.waitFor((s) => !s.includes("hello world"), "Ctrl+C clears the editor");
		run.type("\x03");
		expect(await run.exited).toBe(0);
		expectRestored(run);
	}, 30000);

	test("Ctrl+D on an empty editor quits", async () => {
		const run = runInPty([process.execPath, MAIN], { env });
		await run.waitFor((s) => s.includes("this device"), "the first screen");
		run.type("\x04");
		expect(await run.exited).toBe(0);
		expectRestored(run);
	}, 30000);

	test("two terminals on one machine share this device's server", async () => {
		const first = runInPty([process.execPath, MAIN], { env });
		await first.waitFor((s) => s.includes("this device"), "the first p2");
		const port = /127\.0\.0\.1:(\d+)/.exec(first.screen().join("\n"))?.[1];
		expect(port).toBeDefined();
		const second = runInPty([process.execPath, MAIN], { env });
		await second.waitFor((s) => s.includes("this device"), "the second p2");
		expect(second.screen().join("\n")).toContain(`127.0.0.1:${port}`);
		second.type("\x04");
		first.type("\x04");
		expect(await second.exited).toBe(0);
		expect(await first.exited).toBe(0);
	}, 40000);

	test.if(process.platform === "linux")(
		"once the person types, the engine's compiler threads run at the lowest priority and the UI's at normal",
		async () => {
			const run = runInPty([process.execPath, MAIN], { env });
			await run.waitFor((s) => s.includes("this device"), "the first screen");
			const threads = () =>
				readdirSync(`/proc/${run.pid}/task`).flatMap((id) => {
					try {
						const stat = readFileSync(`/proc/${run.pid}/task/${id}/stat`, "utf8");
						const name =
							id === String(run.pid) ? "main" : readFileSync(`/proc/${run.pid}/task/${id}/comm`, "utf8").trim();
						return [{ name, nice: Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]) }];
					} catch {
						return []; // The thread ended.
					}
				});
			run.type("typed");
			await run.waitFor((s) => s.includes("typed"), "the typed text");
			await waitUntil(() => {
				const jit = threads().filter((t) => t.name.startsWith("JITWorker"));
				return jit.length > 0 && jit.every((t) => t.nice === 19);
			}, "the compiler threads lowered");
			const now = threads();
			expect(now.find((t) => t.name === "main")?.nice).toBe(0);
			expect(now.find((t) => t.name === "Worker")?.nice).toBe(0);
			run.type("\x15\x04");
			expect(await run.exited).toBe(0);
		},
		30000,
	);

	test("flags pi users know but p2 cannot honor fail with one clear line", async () => {
		const proc = Bun.spawn([process.execPath, MAIN, "--no-session"], { env, stderr: "pipe", stdout: "pipe" });
		expect(await proc.exited).toBe(2);
		expect((await new Response(proc.stderr).text()).trim()).toBe(
			"p2: --no-session is not supported by p2: sessions live on the p2 server.",
		);
	});
});

describe("the compiled executable", () => {
	test("runs from a directory without node_modules: --version, a session screen, Ctrl+D, modes restored", async () => {
		const out = mkdtempSync(join(tmpdir(), "p2-exe-"));
		try {
			const build = Bun.spawn([process.execPath, join(import.meta.dir, "..", "..", "scripts", "build.ts")], {
				env: { ...process.env, P2_BUILD_OUT: out },
				stdout: "pipe",
				stderr: "pipe",
			});
			expect(await build.exited).toBe(0);
			const exe = join(out, "p2");
			// No Bun on PATH, no node_modules next to it.
			const bare = { ...env, PATH: "/usr/bin:/bin" };
			const version = Bun.spawn([exe, "--version"], { cwd: out, env: bare, stdout: "pipe" });
			expect(await version.exited).toBe(0);
			// The version and the commit it was built from.
			expect((await new Response(version.stdout).text()).trim()).toMatch(
				/^p2 \d+\.\d+\.\d+ \(commit [0-9a-f]{12}(-dirty)?\)$/,
			);
			// A bootstrap planted in the working directory must never be the one that runs.
			const marker = join(out, "planted-ran");
			mkdirSync(join(out, "src", "host"), { recursive: true });
			for (const ext of ["ts", "js"]) {
				writeFileSync(
					join(out, "src", "host", `worker-bootstrap.${ext}`),
					`require("node:fs").writeFileSync(${JSON.stringify(marker)}, "ran");`,
				);
			}
			const run = runInPty([exe, "from", "exe"], { env: { ...bare, P2_DATA_DIR: join(out, "data") }, cwd: out });
			await run.waitFor((s) => s.includes("this device") && s.includes("from exe"), "the compiled p2's screen");
			run.type("\x15"); // Ctrl+U clears the line, so Ctrl+D quits
			await run.waitFor((s) => !s.includes("from exe"), "an empty editor");
			run.type("\x04");
			expect(await run.exited).toBe(0);
			expectRestored(run);
			expect(existsSync(marker)).toBe(false);
			// Its servers run with the server's engine options: this device's (started so), and one started by
			// hand (the executable starts itself again with them, taking its own arguments).
			const device = readServerInfo(JSON.parse(readFileSync(join(out, "data", SERVER_INFO_FILE), "utf8")));
			expect(engineOf(device!.pid)).toBe("BUN_JSC_useFTLJIT=0");
			await stopDeviceServer(join(out, "data"));
			const serve = Bun.spawn([exe, "serve", "--port", "0"], {
				cwd: out,
				env: { ...bare, P2_DATA_DIR: join(out, "served") },
				stdout: "pipe",
				stderr: "pipe",
			});
			try {
				let said = "";
				for await (const chunk of serve.stdout) {
					said += new TextDecoder().decode(chunk);
					if (said.includes("Owner link")) break;
				}
				expect(said).toContain("Owner link");
				expect(engineOf(serve.pid)).toBe("BUN_JSC_useFTLJIT=0");
			} finally {
				serve.kill();
				await serve.exited;
			}
		} finally {
			await removeHome(out);
		}
	}, 60000);
});

/** The engine option a process was started with (Linux: its environment). */
function engineOf(pid: number): string | undefined {
	return readFileSync(`/proc/${pid}/environ`, "utf8")
		.split("\0")
		.find((entry) => entry.startsWith("BUN_JSC_useFTLJIT="));
}
