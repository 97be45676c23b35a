/**
 * An environment's walk (what `@` searches) is one operation with one meaning on this device and on an SSH
 * machine (a real sshd on this machine's loopback, seeing the same files): the same directory gives the same
 * entries on both.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Environment, WalkOptions } from "../../src/server/env/environment.ts";
import { Environments } from "../../src/server/env/environments.ts";
import { LocalEnvironment } from "../../src/server/env/local.ts";
import { findSshd, TestSshd } from "../support/sshd.ts";

const sshdPath = findSshd();
const SKIP = ["node_modules", ".git", "build"];

/** A project with skipped folders, hidden entries, a file named like a skipped folder and a link out. */
function project(root: string, outside: string): void {
	for (const d of ["src/deep", "node_modules/x", ".git", ".config", "docs"])
		mkdirSync(join(root, d), { recursive: true });
	for (const f of ["README.md", "src/main.ts", "src/deep/helper.ts", "node_modules/x/index.js", ".env", "docs/build"])
		writeFileSync(join(root, f), "");
	mkdirSync(outside, { recursive: true });
	writeFileSync(join(outside, "secret.txt"), "");
	symlinkSync(outside, join(root, "out"));
}

/** The walk's entries, sorted (the order of a walk is its own). */
async function walked(env: Environment, root: string, options: Partial<WalkOptions> = {}) {
	const result = await env.walk(root, { skip: SKIP, hidden: false, limit: 1000, ...options });
	return { entries: [...result.entries].sort((a, b) => a.path.localeCompare(b.path)), truncated: result.truncated };
}

const VISIBLE = [
	{ path: "docs", dir: true },
	{ path: "docs/build", dir: false },
	{ path: "out", dir: false },
	{ path: "README.md", dir: false },
	{ path: "src", dir: true },
	{ path: "src/deep", dir: true },
	{ path: "src/deep/helper.ts", dir: false },
	{ path: "src/main.ts", dir: false },
];

function expectations(env: () => Environment, root: () => string): void {
	test("lists files and folders by relative path, never into skipped folders, hidden ones, or through a link", async () => {
		expect(await walked(env(), root())).toEqual({ entries: VISIBLE, truncated: false });
	});

	test("lists hidden entries when asked, skipped folders still left out", async () => {
		const paths = (await walked(env(), root(), { hidden: true })).entries.map((e) => e.path);
		expect(paths).toContain(".env");
		expect(paths).toContain(".config");
		expect(paths).not.toContain(".git");
		expect(paths).not.toContain("node_modules");
	});

	test("stops at its limit and says so", async () => {
		const { entries, truncated } = await walked(env(), root(), { limit: 3 });
		expect(entries.length).toBeLessThanOrEqual(3);
		expect(truncated).toBe(true);
	});
}

describe("walking this device", () => {
	let base = "";
	beforeAll(() => {
		base = mkdtempSync(join(tmpdir(), "p2-walk-"));
		project(join(base, "project"), join(base, "outside"));
	});
	afterAll(() => rmSync(base, { recursive: true, force: true }));
	expectations(
		() => new LocalEnvironment(),
		() => join(base, "project"),
	);
});

describe.skipIf(!sshdPath)("walking an SSH machine", () => {
	let sshd: TestSshd;
	let dataDir = "";
	let envs: Environments;
	beforeAll(async () => {
		sshd = await TestSshd.start(sshdPath!);
		dataDir = mkdtempSync(join(tmpdir(), "p2-walk-data-"));
		writeFileSync(join(dataDir, "envs.json"), JSON.stringify({ environments: [sshd.entry("box")] }));
		envs = new Environments({ dataDir });
		// The machine's key, accepted as the owner would after the test showed it.
		const offered = await envs.test("box");
		if (offered.ok || !offered.hostKey)
			throw new Error(`expected the machine's key offered: ${JSON.stringify(offered)}`);
		envs.acceptKey(
			"box",
			offered.hostKey.offered.map((k) => k.fingerprint),
		);
		project(join(sshd.home, "project"), join(sshd.home, "outside"));
	});
	afterAll(async () => {
		await envs?.close();
		await sshd?.stop();
		rmSync(dataDir, { recursive: true, force: true });
	});
	expectations(
		() => envs.get("box"),
		() => join(sshd.home, "project"),
	);
});
