import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MAIN } from "../support/fake-home.ts";
import { runInPty } from "../support/pty.ts";

let homes: string[] = [];
afterEach(() => {
	for (const home of homes) rmSync(home, { recursive: true, force: true });
	homes = [];
});

function newHome(): string {
	const home = mkdtempSync(join(tmpdir(), "p2-data-dir-"));
	homes.push(home);
	return home;
}

const envFor = (home: string, data: string) => ({
	PATH: process.env.PATH ?? "",
	HOME: home,
	P2_DATA_DIR: data,
	TERM: "xterm-256color",
});

/**
 * A read-only file system needs a mount: a private mount namespace where a bind mount of the directory is
 * remounted read-only (root, or a system that lets this user unshare). Elsewhere those tests do not run.
 */
function canMountReadOnly(): boolean {
	const dir = mkdtempSync(join(tmpdir(), "p2-ro-probe-"));
	try {
		const probe = Bun.spawnSync(
			["unshare", "-m", "sh", "-c", readOnlyMount(dir, "touch x 2>/dev/null && exit 1; exit 0")],
			{
				stdout: "ignore",
				stderr: "ignore",
			},
		);
		return probe.exitCode === 0;
	} catch {
		return false;
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

/** A shell line that makes `dir` read-only in this mount namespace, then runs `then` in it. */
function readOnlyMount(dir: string, then: string): string {
	return `mount --bind '${dir}' '${dir}' && mount -o remount,ro,bind '${dir}' '${dir}' && cd '${dir}' && ${then}`;
}

const readOnly = canMountReadOnly();

describe("a data directory p2 cannot write", () => {
	test("a file in its way: one line naming the directory and what to do, and p2 ends", async () => {
		const home = newHome();
		writeFileSync(join(home, "a-file"), "");
		const data = join(home, "a-file", "data");
		const run = runInPty([process.execPath, MAIN], { env: envFor(home, data), cwd: home, cols: 300, rows: 10 });
		expect(await run.exited).toBe(1);
		expect(run.screen().join("\n")).toContain(
			`p2: the data directory ${data} cannot be made (${join(home, "a-file")} is not a directory), and no p2 server is running for it; set P2_DATA_DIR to a writable directory`,
		);
	}, 30_000);

	test.skipIf(!readOnly)(
		"read-only: one line saying so when no server runs for it",
		async () => {
			const home = newHome();
			const data = join(home, "data");
			mkdirSync(data, { mode: 0o755 });
			const line = readOnlyMount(data, `exec '${process.execPath}' '${MAIN}'`);
			const run = runInPty(["unshare", "-m", "sh", "-c", line], {
				env: envFor(home, data),
				cwd: home,
				cols: 300,
				rows: 10,
			});
			expect(await run.exited).toBe(1);
			const screen = run.screen().join("\n");
			expect(screen).toContain(
				`p2: the data directory ${data} is on a read-only file system, and no p2 server is running for it; set P2_DATA_DIR to a writable directory`,
			);
			expect(screen).not.toContain("EROFS");
		},
		30_000,
	);

	test.skipIf(!readOnly)(
		"read-only: the server already running for it is reached",
		async () => {
			const home = newHome();
			const data = join(home, "data");
			mkdirSync(data, { mode: 0o700 });
			const env = envFor(home, data);
			const serve = Bun.spawn([process.execPath, MAIN, "serve", "--port", "0"], {
				env,
				stdout: "pipe",
				stderr: "ignore",
			});
			try {
				const reader = serve.stdout.getReader();
				let out = "";
				while (!out.includes("p2 server listening on") || !existsSync(join(data, "server.json"))) {
					const { value, done } = await reader.read();
					if (done) throw new Error(`p2 serve ended: ${out}`);
					out += new TextDecoder().decode(value);
				}
				const line = readOnlyMount(data, `cd '${home}' && exec '${process.execPath}' '${MAIN}'`);
				const run = runInPty(["unshare", "-m", "sh", "-c", line], { env, cwd: home, cols: 120, rows: 30 });
				try {
					await run.waitFor(
						(s) => s.includes("this device") && s.includes("clear/exit"),
						"the chat on the running server",
					);
				} finally {
					run.kill();
					await run.exited;
				}
			} finally {
				serve.kill();
				await serve.exited;
			}
		},
		30_000,
	);
});
