/**
 * The Environment primitives the workspace and ports plugins read machines through (run, realPath, listings with
 * links and sizes, watch, TCP to the loopback): one case file run against this device and, where sshd is
 * installed, a real OpenSSH server on loopback, so a plugin's one code path means the same on both.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Environment } from "../../src/server/env/environment.ts";
import { Environments } from "../../src/server/env/environments.ts";
import { LocalEnvironment } from "../../src/server/env/local.ts";
import { findSshd, TestSshd } from "../support/sshd.ts";
import { waitUntil } from "../support/wait.ts";

const sshdPath = findSshd();

/** The cases, for an environment whose files live in `dir()` here (sshd runs as this user, on this machine). */
function primitives(name: string, env: () => Environment, dir: () => string): void {
	describe(`${name}: Environment primitives`, () => {
		test("run passes argv as words (no shell), feeds stdin with NULs, and keeps only stdout", async () => {
			const words = await env().run(["printf", "%s|", "$(id)", "a b", "*"], {
				cwd: dir(),
				maxBytes: 1000,
				timeoutMs: 10_000,
			});
			expect(words).toEqual({ code: 0, out: "$(id)|a b|*|", full: false, timedOut: false });
			const input = await env().run(["tr", "\\0", "\\n"], {
				cwd: dir(),
				input: "one\0two words\0",
				maxBytes: 1000,
				timeoutMs: 10_000,
			});
			expect(input.out).toBe("one\ntwo words\n");
			const noisy = await env().run(["sh", "-c", "echo out; echo err >&2; exit 3"], {
				cwd: dir(),
				maxBytes: 1000,
				timeoutMs: 10_000,
			});
			expect(noisy).toEqual({ code: 3, out: "out\n", full: false, timedOut: false });
		});

		test("run is bounded in output and time; a program the machine lacks exits 127", async () => {
			const full = await env().run(["yes"], { cwd: dir(), maxBytes: 100, timeoutMs: 10_000 });
			expect(full).toMatchObject({ code: null, full: true, timedOut: false });
			expect(full.out).toBe("y\n".repeat(50));
			const slow = await env().run(["sleep", "600"], { cwd: dir(), maxBytes: 100, timeoutMs: 300 });
			expect(slow).toMatchObject({ code: null, full: false, timedOut: true });
			const missing = await env().run(["p2-no-such-program"], { cwd: dir(), maxBytes: 100, timeoutMs: 10_000 });
			expect(missing.code).toBe(127);
		});

		test("realPath resolves links and names nothing for a missing path", async () => {
			expect(await env().realPath(join(dir(), "link-to-sub"))).toBe(join(dir(), "sub"));
			expect(await env().realPath(join(dir(), "sub", "..", "file.txt"))).toBe(join(dir(), "file.txt"));
			expect(await env().realPath(join(dir(), "missing"))).toBeNull();
			expect(await env().realPath(join(dir(), "dangling"))).toBeNull();
		});

		test("a listing names links (never as folders) and, asked, each file's size", async () => {
			const listed = await env().listDirectory(dir(), { sizes: true });
			const byName = new Map(listed.map((e) => [e.name, e]));
			expect(byName.get("sub")).toEqual({ name: "sub", dir: true, link: false, size: 0 });
			expect(byName.get("file.txt")).toEqual({ name: "file.txt", dir: false, link: false, size: 5 });
			expect(byName.get("link-to-sub")).toMatchObject({ dir: false, link: true });
			expect(byName.get("dangling")).toMatchObject({ dir: false, link: true });
			expect(byName.get(".hidden")).toMatchObject({ dir: false, link: false, size: 2 });
		});

		test("a TCP connection to the machine's loopback carries bytes both ways; a closed port ends at once", async () => {
			const echo = Bun.listen({
				hostname: "127.0.0.1",
				port: 0,
				socket: { data: (socket, bytes) => void socket.write(bytes) },
			});
			try {
				let got = "";
				let ended = false;
				const connection = env().connectTcp("127.0.0.1", echo.port, {
					data: (bytes) => {
						got += new TextDecoder().decode(bytes);
					},
					closed: () => {
						ended = true;
					},
				});
				connection.write(new TextEncoder().encode("ping"));
				await waitUntil(() => got === "ping", "the echo");
				connection.close();
				await waitUntil(() => ended, "the connection's end");
			} finally {
				echo.stop(true);
			}
			const free = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
			const port = free.port;
			free.stop(true);
			let refused = false;
			env().connectTcp("127.0.0.1", port, { data: () => {}, closed: () => (refused = true) });
			await waitUntil(() => refused, "the refused connection's end");
		});
	});
}

/** A directory with a folder, a file, a hidden file, a link to the folder and a dangling link. */
function fill(dir: string): void {
	mkdirSync(join(dir, "sub"));
	writeFileSync(join(dir, "file.txt"), "hello");
	writeFileSync(join(dir, ".hidden"), "hi");
	symlinkSync(join(dir, "sub"), join(dir, "link-to-sub"));
	symlinkSync(join(dir, "nowhere"), join(dir, "dangling"));
}

let localDir = "";
const local = new LocalEnvironment();
beforeAll(() => {
	localDir = realpathSync(mkdtempSync(join(tmpdir(), "p2-env-local-")));
	fill(localDir);
});
afterAll(() => rmSync(localDir, { recursive: true, force: true }));

primitives(
	"this device",
	() => local,
	() => localDir,
);

test("this device: watch calls after a change anywhere below, and not after it is stopped", async () => {
	let changes = 0;
	const stop = local.watch(localDir, () => changes++);
	expect(stop).not.toBeNull();
	writeFileSync(join(localDir, "sub", "new.txt"), "x");
	await waitUntil(() => changes > 0, "a change seen");
	stop?.();
});

describe.skipIf(!sshdPath)("over SSH", () => {
	let sshd: TestSshd;
	let dataDir: string;
	let envs: Environments;
	let sshDir = "";

	beforeAll(async () => {
		sshd = await TestSshd.start(sshdPath!);
		dataDir = mkdtempSync(join(tmpdir(), "p2-env-ssh-data-"));
		writeFileSync(join(dataDir, "envs.json"), JSON.stringify({ environments: [sshd.entry("box")] }));
		envs = new Environments({ dataDir });
		const tested = await envs.test("box");
		if (!tested.ok && tested.hostKey) {
			envs.acceptKey(
				"box",
				tested.hostKey.offered.map((k) => k.fingerprint),
			);
		}
		sshDir = join(realpathSync(sshd.home), "primitives");
		mkdirSync(sshDir);
		fill(sshDir);
	});
	afterAll(async () => {
		await envs?.close();
		await sshd?.stop();
		rmSync(dataDir, { recursive: true, force: true });
	});

	primitives(
		"an SSH machine",
		() => envs.get("box"),
		() => sshDir,
	);

	test("an SSH machine: nothing watches its files from here (the caller reads again after a run)", () => {
		expect(envs.get("box").watch("/", () => {})).toBeNull();
	});
});
