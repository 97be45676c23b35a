/**
 * Prebuilt binaries as people download them: the release's archives, checksums and sizes, the linux-arm64
 * executable under qemu-user, install.sh against a local HTTP server serving the release, and `p2 update`.
 * The release is made once for linux-x64 and linux-arm64 (the other platforms are made the same way by
 * `npm run release`; they cannot run here).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
	copyFileSync,
	existsSync,
	mkdirSync,
	mkdtempSync,
	readFileSync,
	rmSync,
	statSync,
	writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { makeRelease, RELEASE_FILE, type Release, SUMS_FILE } from "../../scripts/release.ts";
import { parseRelease, parseSums, UpdateError, updateExecutable } from "../../src/host/update.ts";
import { BUNDLE_PATH } from "../../src/protocol/server-info.ts";

const ROOT = join(import.meta.dir, "..", "..");
const INSTALL = join(ROOT, "install.sh");
const QEMU = ["/usr/bin/qemu-aarch64-static", "/usr/bin/qemu-aarch64"].find((path) => existsSync(path));
const ARM64_LIBS = "/usr/aarch64-linux-gnu";

let dir: string;
let releaseDir: string;
let release: Release;
let sizes: Record<string, { ratio: number }>;
let served: ReturnType<typeof Bun.serve>;
/** Serves `root` as a release location: each file by name, nothing else. */
const locations = new Map<string, string>();

beforeAll(async () => {
	dir = mkdtempSync(join(tmpdir(), "p2-release-"));
	releaseDir = join(dir, "release");
	const made = await makeRelease(releaseDir, ["linux-x64", "linux-arm64"]);
	release = made.release;
	sizes = made.sizes;
	locations.set("real", releaseDir);
	served = Bun.serve({
		hostname: "127.0.0.1",
		port: 0,
		fetch(req) {
			const [, name, file] = new URL(req.url).pathname.split("/");
			const root = name ? locations.get(name) : undefined;
			if (!root || !file || file.includes("..")) return new Response("not found", { status: 404 });
			const path = join(root, file);
			return existsSync(path) ? new Response(Bun.file(path)) : new Response("not found", { status: 404 });
		},
	});
}, 600_000);

afterAll(() => {
	served?.stop(true);
	rmSync(dir, { recursive: true, force: true });
});

const at = (name: string) => `http://127.0.0.1:${served.port}/${name}/`;

/** Runs a command that may download from this process' own server (so never synchronously). */
async function run(
	cmd: string[],
	env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
	const proc = Bun.spawn(cmd, { env, stdout: "pipe", stderr: "pipe" });
	const [stdout, stderr, code] = await Promise.all([
		new Response(proc.stdout).text(),
		new Response(proc.stderr).text(),
		proc.exited,
	]);
	return { code, stdout, stderr };
}

function unpack(archive: string, into: string): string {
	mkdirSync(into, { recursive: true });
	const done = Bun.spawnSync(["tar", "-xzf", archive, "-C", into], { stderr: "pipe" });
	expect(done.exitCode).toBe(0);
	return join(into, "p2");
}

/** A release of `version` whose executable is a script that names that version. */
function fakeRelease(name: string, version: string, damage = false): string {
	const root = join(dir, name);
	const work = join(root, ".work");
	mkdirSync(work, { recursive: true });
	writeFileSync(join(work, "p2"), `#!/bin/sh\necho "p2 ${version} (commit 0123456789ab)"\n`, { mode: 0o755 });
	const archive = "p2-linux-x64.tar.gz";
	expect(Bun.spawnSync(["tar", "-czf", join(root, archive), "p2"], { cwd: work }).exitCode).toBe(0);
	rmSync(work, { recursive: true, force: true });
	writeFileSync(
		join(root, RELEASE_FILE),
		JSON.stringify({ version, commit: "0123456789ab", archives: { "linux-x64": archive } }),
	);
	const sum = (file: string) => new Bun.CryptoHasher("sha256").update(readFileSync(join(root, file))).digest("hex");
	const lines = [archive, RELEASE_FILE].map((file) => `${sum(file)}  ${file}`);
	writeFileSync(join(root, SUMS_FILE), `${lines.join("\n")}\n`);
	if (damage) writeFileSync(join(root, archive), Buffer.concat([readFileSync(join(root, archive)), Buffer.from("x")]));
	locations.set(name, root);
	return at(name);
}

describe("the release", () => {
	test("an archive per platform, release.json, install.sh and SHA256SUMS that sha256sum -c accepts", () => {
		expect(release.version).toBe(pkg.version);
		expect(release.commit).toMatch(/^[0-9a-f]{12}(-dirty)?$/);
		expect(release.archives).toEqual({ "linux-x64": "p2-linux-x64.tar.gz", "linux-arm64": "p2-linux-arm64.tar.gz" });
		const check = Bun.spawnSync(["sha256sum", "-c", SUMS_FILE], { cwd: releaseDir, stdout: "pipe" });
		expect(check.exitCode).toBe(0);
		expect(check.stdout.toString()).toBe(
			"install.sh: OK\np2-linux-arm64.tar.gz: OK\np2-linux-x64.tar.gz: OK\nrelease.json: OK\n",
		);
		expect(parseRelease(JSON.parse(readFileSync(join(releaseDir, RELEASE_FILE), "utf8"))).version).toBe(pkg.version);
		expect([...parseSums(readFileSync(join(releaseDir, SUMS_FILE), "utf8")).keys()].sort()).toEqual([
			"install.sh",
			"p2-linux-arm64.tar.gz",
			"p2-linux-x64.tar.gz",
			"release.json",
		]);
	}, 120_000);

	test("each archive holds the executable alone, mode 0755, within 1.2 times a bare Bun executable", () => {
		for (const archive of Object.values(release.archives)) {
			const listed = Bun.spawnSync(["tar", "-tvzf", join(releaseDir, archive)], { stdout: "pipe" }).stdout.toString();
			const lines = listed.trim().split("\n");
			expect(lines).toHaveLength(1);
			expect(lines[0]).toMatch(/^-rwxr-xr-x 0\/0 .* p2$/);
		}
		for (const platform of ["linux-x64", "linux-arm64"]) expect(sizes[platform]!.ratio).toBeLessThanOrEqual(1.2);
	}, 120_000);

	test("the linux-x64 executable names its version and the commit it was built from", () => {
		const exe = unpack(join(releaseDir, "p2-linux-x64.tar.gz"), join(dir, "x64"));
		const said = Bun.spawnSync([exe, "--version"], { env: { PATH: "/usr/bin:/bin" }, stdout: "pipe" });
		expect(said.exitCode).toBe(0);
		expect(said.stdout.toString().trim()).toBe(`p2 ${release.version} (commit ${release.commit})`);
	}, 120_000);

	test("the linux-arm64 executable runs under qemu-user: it prints its version and serves", async () => {
		if (!QEMU || !existsSync(ARM64_LIBS)) {
			if (process.env.CI) throw new Error("qemu-user-static and libc6-arm64-cross are missing (.ci/run installs them)");
			console.warn("skipped: qemu-user-static or libc6-arm64-cross is not installed");
			return;
		}
		const exe = unpack(join(releaseDir, "p2-linux-arm64.tar.gz"), join(dir, "arm64"));
		const qemu = [QEMU, "-L", ARM64_LIBS, exe];
		const said = Bun.spawnSync([...qemu, "--version"], { stdout: "pipe", stderr: "pipe" });
		expect(said.stderr.toString()).toBe("");
		expect(said.stdout.toString().trim()).toBe(`p2 ${release.version} (commit ${release.commit})`);
		// The engine options are set already, so the server does not start itself again (qemu-user cannot).
		const data = join(dir, "arm64-data");
		const serve = Bun.spawn([...qemu, "serve", "--port", "0"], {
			env: { PATH: "/usr/bin:/bin", HOME: dir, P2_DATA_DIR: data, BUN_JSC_useFTLJIT: "0" },
			stdout: "pipe",
			stderr: "pipe",
		});
		try {
			let said = "";
			for await (const chunk of serve.stdout) {
				said += new TextDecoder().decode(chunk);
				if (said.includes("Owner link")) break;
			}
			const origin = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(said)?.[1];
			expect(origin).toBeDefined();
			// The bundle route answers, and refuses a request that is nobody's.
			const answer = await fetch(`${origin}${BUNDLE_PATH}`, { method: "HEAD" });
			expect(answer.status).toBe(401);
		} finally {
			serve.kill();
			await serve.exited;
		}
	}, 300_000);
});

describe("install.sh", () => {
	test("picks this machine's archive, checks it, and installs p2 into the directory given", async () => {
		const bin = join(dir, "installed", "bin");
		// The installer as the release serves it.
		const installer = join(releaseDir, "install.sh");
		expect(readFileSync(installer, "utf8")).toBe(readFileSync(INSTALL, "utf8"));
		const done = await run(["sh", installer, "--from", at("real"), "--dir", bin], { PATH: "/usr/bin:/bin", HOME: dir });
		expect(done.stderr).toContain(`installed p2 ${release.version} (commit ${release.commit}) as ${bin}/p2`);
		expect(done.code).toBe(0);
		expect(statSync(join(bin, "p2")).mode & 0o777).toBe(0o755);
		const said = Bun.spawnSync([join(bin, "p2"), "--version"], { stdout: "pipe" });
		expect(said.stdout.toString().trim()).toBe(`p2 ${release.version} (commit ${release.commit})`);
	}, 120_000);

	test("an archive that does not match its checksum installs nothing; nor does a location off https", async () => {
		const bin = join(dir, "refused", "bin");
		const damaged = fakeRelease("damaged-install", "9.9.9", true);
		const env = { PATH: "/usr/bin:/bin", HOME: dir };
		const done = await run(["sh", INSTALL, "--from", damaged, "--dir", bin], env);
		expect(done.code).toBe(1);
		expect(done.stderr).toContain("p2-linux-x64.tar.gz does not match its checksum");
		expect(done.stderr).toContain("nothing was installed");
		expect(existsSync(join(bin, "p2"))).toBe(false);
		const plain = await run(["sh", INSTALL, "--from", "http://example.org/p2/", "--dir", bin], env);
		expect(plain.code).toBe(1);
		expect(plain.stderr).toContain("must be https");
	}, 120_000);
});

describe("p2 update", () => {
	/** An installed p2 to update: the real executable, or a script standing for it. */
	function installed(name: string): string {
		const target = join(dir, name, "p2");
		mkdirSync(join(dir, name), { recursive: true });
		writeFileSync(target, `#!/bin/sh\necho "p2 0.0.1 (commit aaaaaaaaaaaa)"\n`, { mode: 0o755 });
		return target;
	}
	const current = { version: "0.0.1", commit: "aaaaaaaaaaaa" };
	const noServer = { findOwnServer: async () => undefined, askToMakeWay: async () => true };

	test("the real executable replaces itself with a newer release once its checksum matches", async () => {
		const exe = join(dir, "self-update", "p2");
		mkdirSync(join(dir, "self-update"), { recursive: true });
		copyFileSync(unpack(join(releaseDir, "p2-linux-x64.tar.gz"), join(dir, "x64-for-update")), exe);
		const from = fakeRelease("newer", "9.9.9");
		const done = await run([exe, "update", "--from", from], {
			PATH: "/usr/bin:/bin",
			HOME: dir,
			P2_DATA_DIR: join(dir, "self-update-data"),
		});
		expect(done.stderr).toBe("");
		expect(done.stdout.trim()).toBe("p2 updated: p2 9.9.9 (commit 0123456789ab)");
		expect(done.code).toBe(0);
		const said = Bun.spawnSync([exe, "--version"], { stdout: "pipe" });
		expect(said.stdout.toString().trim()).toBe("p2 9.9.9 (commit 0123456789ab)");
	}, 120_000);

	test("the same release is up to date; a damaged archive, a location off https and a live run leave p2 as it was", async () => {
		const exe = installed("kept");
		const before = readFileSync(exe);
		const up = await updateExecutable({
			from: fakeRelease("same", "0.0.1"),
			executable: exe,
			platform: "linux-x64",
			current: { version: "0.0.1", commit: "0123456789ab" },
			...noServer,
		});
		expect(up.kind).toBe("current");
		const attempts: [string, () => Promise<unknown>][] = [
			[
				"does not match its checksum",
				() =>
					updateExecutable({
						from: fakeRelease("damaged", "9.9.9", true),
						executable: exe,
						platform: "linux-x64",
						current,
						...noServer,
					}),
			],
			[
				"must be https",
				() =>
					updateExecutable({
						from: "http://example.org/p2/",
						executable: exe,
						platform: "linux-x64",
						current,
						...noServer,
					}),
			],
			[
				"has no executable for darwin-arm64",
				() =>
					updateExecutable({
						from: fakeRelease("newer-2", "9.9.9"),
						executable: exe,
						platform: "darwin-arm64",
						current,
						...noServer,
					}),
			],
			[
				"running a live run",
				() =>
					updateExecutable({
						from: fakeRelease("newer-3", "9.9.9"),
						executable: exe,
						platform: "linux-x64",
						current,
						findOwnServer: async () => ({ origin: "http://127.0.0.1:1", port: 1, pid: 1, deviceToken: "t" }),
						askToMakeWay: async () => false,
					}),
			],
		];
		for (const [words, attempt] of attempts) {
			const refused = await attempt().then(
				() => undefined,
				(error: unknown) => error,
			);
			expect(refused).toBeInstanceOf(UpdateError);
			expect((refused as Error).message).toContain(words);
			expect(readFileSync(exe)).toEqual(before);
		}
		// Nothing is left beside the executable.
		expect(
			Bun.spawnSync(["ls", "-A", join(dir, "kept")], { stdout: "pipe" })
				.stdout.toString()
				.trim(),
		).toBe("p2");
	}, 120_000);

	test("a server this executable started is asked to make way first; when it does, p2 is replaced", async () => {
		const exe = installed("server-idle");
		const asked: string[] = [];
		const done = await updateExecutable({
			from: fakeRelease("newer-4", "9.9.9"),
			executable: exe,
			platform: "linux-x64",
			current,
			findOwnServer: async () => ({ origin: "http://127.0.0.1:1", port: 1, pid: 1, deviceToken: "t" }),
			askToMakeWay: async (info) => {
				asked.push(info.origin);
				return true;
			},
		});
		expect(asked).toEqual(["http://127.0.0.1:1"]);
		expect(done).toMatchObject({ kind: "updated", version: "9.9.9" });
		expect(Bun.spawnSync([exe], { stdout: "pipe" }).stdout.toString().trim()).toBe("p2 9.9.9 (commit 0123456789ab)");
	}, 120_000);
});
