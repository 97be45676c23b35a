import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathCompletionContract } from "../../../src/plugins/path-completion/contract.ts";
import {
	type FileIndex,
	FileIndexCache,
	FRESH_MS,
	walkFiles,
} from "../../../src/plugins/path-completion/file-index.ts";
import { completePath, findFiles, pathCompletionServerPlugin } from "../../../src/plugins/path-completion/server.ts";
import { sessionsContract } from "../../../src/plugins/sessions/contract.ts";
import type { Environment } from "../../../src/server/env/environment.ts";
import { LocalEnvironment } from "../../../src/server/env/local.ts";
import { startTestServer } from "../../support/p2-server.ts";
import { waitUntil } from "../../support/wait.ts";

const local = new LocalEnvironment();
let repo = "";

/** A git work tree with ignored files (at the top and in a nested .gitignore), dotfiles and many files. */
beforeAll(() => {
	repo = realpathSync(mkdtempSync(join(tmpdir(), "p2-index-")));
	Bun.spawnSync(["git", "init", "-q", repo]);
	const files: Record<string, string> = {
		".gitignore": "*.log\nbuild/\n",
		"src/main.ts": "",
		"src/debug.log": "",
		"build/out.js": "",
		"sub/.gitignore": "local.txt\n",
		"sub/local.txt": "",
		"sub/kept.ts": "",
		".github/workflows/ci.yml": "",
		".env.example": "",
	};
	for (let i = 0; i < 30; i++) files[`many/file-${i}.txt`] = "";
	for (const [path, text] of Object.entries(files)) {
		mkdirSync(join(repo, path, ".."), { recursive: true });
		writeFileSync(join(repo, path), text);
	}
});
afterAll(() => rmSync(repo, { recursive: true, force: true }));

const paths = (index: FileIndex) => index.entries.map((e) => e.path);

describe("the session directory's index (@)", () => {
	test("leaves out what any .gitignore ignores and .git, keeps dotfiles as pi (fd --hidden) does", async () => {
		const index = await walkFiles(local, repo);
		const all = paths(index);
		for (const kept of [
			"src/main.ts",
			"sub/kept.ts",
			".github/",
			".github/workflows/ci.yml",
			".env.example",
			".gitignore",
		])
			expect(all).toContain(kept);
		for (const ignored of ["src/debug.log", "build/", "build/out.js", "sub/local.txt"])
			expect(all).not.toContain(ignored);
		expect(all.some((p) => p === ".git/" || p.startsWith(".git/"))).toBe(false);
		expect(index.truncated).toBe(false);
		expect(findFiles(index, "ci.yml").items[0]).toEqual({ path: ".github/workflows/ci.yml", dir: false });
	});

	test("a walk cut at its bound says so, and the answer built from it is partial", async () => {
		const index = await walkFiles(local, repo, 10);
		expect(index.entries.length).toBe(10);
		expect(index.truncated).toBe(true);
		expect(findFiles(index, "").truncated).toBe(true);
		expect(findFiles(await walkFiles(local, repo), "kept").truncated).toBe(false);
	});

	test("Tab inside the session's directory leaves out the ignored entries and .git too", async () => {
		const index = await walkFiles(local, repo);
		expect((await completePath(local, repo, "", "session", index)).items.map((i) => i.path)).toEqual([
			".github/",
			"many/",
			"src/",
			"sub/",
			".env.example",
			".gitignore",
		]);
		expect((await completePath(local, repo, "sub/", "session", index)).items.map((i) => i.path)).toEqual([
			"sub/.gitignore",
			"sub/kept.ts",
		]);
		expect((await completePath(local, repo, "src/", "server", index)).items.map((i) => i.path)).toEqual([
			"src/main.ts",
		]);
	});
});

describe("the index is kept per directory and refreshed", () => {
	function counted() {
		const walked: string[] = [];
		let now = 1_000;
		const cache = new FileIndexCache({
			walk: (env: Environment, cwd: string) => {
				walked.push(cwd);
				return walkFiles(env, cwd);
			},
			now: () => now,
		});
		return { cache, walked, advance: (ms: number) => (now += ms) };
	}

	test("a second request answers from the walk; once it is old a request starts the next, and a new file appears", async () => {
		const { cache, walked, advance } = counted();
		const first = await cache.get(local, repo);
		expect(paths(first)).not.toContain("fresh.ts");
		writeFileSync(join(repo, "fresh.ts"), "");
		const again = await cache.get(local, repo);
		expect(walked).toEqual([repo]);
		expect(again).toBe(first);
		advance(FRESH_MS);
		// The old walk still answers (typing never waits), and the next one starts.
		expect(await cache.get(local, repo)).toBe(first);
		expect(walked).toEqual([repo, repo]);
		let latest = first;
		await waitUntil(() => {
			void cache.get(local, repo).then((index) => {
				latest = index;
			});
			return paths(latest).includes("fresh.ts");
		}, "the new file, after the refresh");
		expect(walked).toEqual([repo, repo]);
	});

	test("requests during a walk share it; a failed walk is not kept", async () => {
		let walks = 0;
		let fail = true;
		const cache = new FileIndexCache({
			walk: async () => {
				walks++;
				if (fail) throw new Error("no machine");
				return { entries: [], ignored: new Set(), truncated: false };
			},
		});
		await expect(cache.get(local, repo)).rejects.toThrow("no machine");
		fail = false;
		const [a, b] = await Promise.all([cache.get(local, repo), cache.get(local, repo)]);
		expect(a).toBe(b);
		expect(walks).toBe(2);
	});
});

describe("the server's path-completion object keeps one walk per session directory", () => {
	test("fuzzy and Tab requests share the walk; once it is old the next walk finds a new file", async () => {
		const walked: string[] = [];
		let now = 1_000;
		const ts = await startTestServer({
			plugins: (defaults) =>
				defaults.map((plugin) =>
					plugin.name === "path-completion"
						? pathCompletionServerPlugin({
								walk: (env, cwd) => {
									walked.push(cwd);
									return walkFiles(env, cwd);
								},
								now: () => now,
							})
						: plugin,
				),
		});
		try {
			const device = await ts.connect();
			const sessions = await device.open(sessionsContract, {});
			const session = (await sessions.call("create", { cwd: repo })).id;
			const files = await device.open(pathCompletionContract, { session });
			const complete = async (prefix: string, mode: "path" | "fuzzy") =>
				(await files.call("complete", { prefix, mode })).items.map((i) => i.path);
			expect(await complete("main", "fuzzy")).toContain("src/main.ts");
			expect(await complete("src/", "path")).toEqual(["src/main.ts"]);
			expect(await complete("kept", "fuzzy")).toContain("sub/kept.ts");
			expect(walked).toEqual([repo]);
			writeFileSync(join(repo, "later.ts"), "");
			expect(await complete("later", "fuzzy")).not.toContain("later.ts");
			now += FRESH_MS;
			let found: string[] = [];
			await waitUntil(() => {
				// A request still on its way when the server stops is of no interest.
				void complete("later", "fuzzy").then(
					(paths) => {
						found = paths;
					},
					() => {},
				);
				return found.includes("later.ts");
			}, "the new file, after the next walk");
			expect(walked).toEqual([repo, repo]);
		} finally {
			await ts.stop();
		}
	}, 30_000);
});

describe("without a walk", () => {
	test("a session directory that is gone: @ finds nothing, Tab still lists what the owner types", async () => {
		const gone = realpathSync(mkdtempSync(join(tmpdir(), "p2-gone-")));
		const ts = await startTestServer();
		try {
			const device = await ts.connect();
			const sessions = await device.open(sessionsContract, {});
			const session = (await sessions.call("create", { cwd: gone })).id;
			rmSync(gone, { recursive: true, force: true });
			const files = await device.open(pathCompletionContract, { session });
			expect(await files.call("complete", { prefix: "x", mode: "fuzzy" })).toEqual({ items: [], truncated: false });
			const tab = await files.call("complete", { prefix: `${repo}/sr`, mode: "path" });
			expect(tab.items).toEqual([{ path: `${repo}/src/`, dir: true }]);
		} finally {
			await ts.stop();
		}
	}, 30_000);
});
