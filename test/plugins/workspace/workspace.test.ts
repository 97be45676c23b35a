import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sessionsContract } from "../../../src/plugins/sessions/contract.ts";
import { confine as confineOn } from "../../../src/plugins/workspace/confine.ts";
import { MAX_MATCHES, workspaceContract } from "../../../src/plugins/workspace/contract.ts";
import { SessionDirectory } from "../../../src/plugins/workspace/directory.ts";
import { LocalEnvironment } from "../../../src/server/env/local.ts";
import { joinAsGuest } from "../../support/guests.ts";
import {
	connectClient,
	startTestServer,
	type TestClient,
	type TestServer,
	waitForState,
} from "../../support/p2-server.ts";

/** This device's directories, as the workspace object reads them. */
const local = new LocalEnvironment();
const directory = new SessionDirectory(local);
const confine = (root: string, typed: string) => confineOn(local, root, typed);
const listDir = (root: string, path: string, hidden: boolean) => directory.list(root, path, hidden);
const readPage = (root: string, path: string, line: number, limit: number, find?: string) =>
	directory.read(root, path, line, limit, find);
const gitStatus = (root: string) => directory.status(root);
const gitDiff = (root: string, path: string, kind: "staged" | "unstaged" | "untracked") =>
	directory.diff(root, path, kind);
const grep = (root: string, text: string, timeoutMs?: number) => directory.grep(root, text, timeoutMs);

const dirs: string[] = [];
function tempDir(prefix: string): string {
	const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
	dirs.push(dir);
	return dir;
}
afterAll(() => {
	for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function git(cwd: string, ...args: string[]): void {
	const ran = Bun.spawnSync(["git", "-c", "user.email=t@t", "-c", "user.name=t", ...args], { cwd });
	if (ran.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${ran.stderr.toString()}`);
}

let root = "";
let outside = "";
beforeAll(() => {
	root = tempDir("p2-ws-");
	outside = tempDir("p2-ws-out-");
	writeFileSync(join(outside, "secret.txt"), "the secret needle\n");
	mkdirSync(join(root, "src"));
	mkdirSync(join(root, "build"));
	writeFileSync(join(root, "src", "main.ts"), "const a = 1;\nconsole.log('needle');\n");
	writeFileSync(join(root, "README.md"), "# Title\nno match here\n");
	writeFileSync(join(root, ".env"), "needle=hidden\n");
	writeFileSync(join(root, ".gitignore"), "build/\n");
	writeFileSync(join(root, "build", "out.js"), "needle in ignored output\n");
	writeFileSync(join(root, "image.bin"), Buffer.from([0x89, 0x50, 0, 1, 2, 3]));
	symlinkSync(outside, join(root, "out"));
	symlinkSync(join(outside, "secret.txt"), join(root, "secret-link.txt"));
	symlinkSync(join(root, "src"), join(root, "alias"));
});

describe("confinement to the session's directory", () => {
	test("`..`, absolute paths, ~ and links that leave are refused; a link that stays inside is followed", async () => {
		for (const typed of [
			"..",
			"../",
			"src/../..",
			"/etc/passwd",
			outside,
			"~/",
			"out",
			"out/secret.txt",
			"secret-link.txt",
		]) {
			expect({ typed, confined: await confine(root, typed) }).toEqual({ typed, confined: null });
		}
		expect((await confine(root, ""))?.rel).toBe("");
		expect((await confine(root, "src/../README.md"))?.rel).toBe("README.md");
		expect(await confine(root, "alias/main.ts")).toEqual({ rel: "alias/main.ts", real: join(root, "src", "main.ts") });
	});

	test("reading or listing outside is refused with a clear error; nothing of the outside is returned", async () => {
		for (const path of ["../", outside, "out", "secret-link.txt", "out/secret.txt"]) {
			await expect(readPage(root, path, 1, 10)).rejects.toThrow("is not in the session's directory");
			await expect(listDir(root, path, true)).rejects.toThrow("is not in the session's directory");
		}
	});

	test("a listing names links without following them, folders first, hidden entries on request, sizes and git's ignored", async () => {
		git(root, "init", "-q");
		const listed = await listDir(root, "", false);
		expect(listed.entries.map((e) => e.name)).toEqual([
			"build",
			"src",
			"README.md",
			"alias",
			"image.bin",
			"out",
			"secret-link.txt",
		]);
		const byName = new Map(listed.entries.map((e) => [e.name, e]));
		expect(byName.get("out")).toMatchObject({ dir: false, link: true });
		expect(byName.get("build")).toMatchObject({ dir: true, ignored: true });
		expect(byName.get("src")?.ignored).toBe(false);
		expect(byName.get("README.md")?.size).toBe(22);
		const all = await listDir(root, "", true);
		expect(all.entries.map((e) => e.name)).toContain(".env");
		rmSync(join(root, ".git"), { recursive: true, force: true });
	});
});

describe("the viewer's pages: bounded, never the whole file", () => {
	test("a page of lines from a line, with more after; a search starts the page at the match", async () => {
		const big = tempDir("p2-ws-big-");
		const lines = Array.from({ length: 200_000 }, (_, i) => `line ${i + 1}`);
		writeFileSync(join(big, "big.txt"), `${lines.join("\n")}\n`);
		const page = await readPage(big, "big.txt", 100_000, 3);
		expect(page).toMatchObject({ line: 100_000, lines: ["line 100000", "line 100001", "line 100002"], more: true });
		const last = await readPage(big, "big.txt", 199_999, 10);
		expect(last).toMatchObject({ lines: ["line 199999", "line 200000"], more: false });
		const found = await readPage(big, "big.txt", 10, 2, "LINE 1500");
		expect(found).toMatchObject({ line: 1500, lines: ["line 1500", "line 1501"] });
		expect(await readPage(big, "big.txt", 1, 2, "no such text")).toMatchObject({ line: null, lines: [] });
	});

	test("a very long line is cut; a binary file is named, not shown", async () => {
		const dir = tempDir("p2-ws-long-");
		writeFileSync(join(dir, "long.txt"), `${"x".repeat(100_000)}\nnext\n`);
		const page = await readPage(dir, "long.txt", 1, 5);
		expect(page.lines[0]?.length).toBe(2000);
		expect(page.lines[1]).toBe("next");
		expect(await readPage(root, "image.bin", 1, 5)).toMatchObject({ binary: true, lines: [] });
	});
});

describe("git's changes", () => {
	test("outside a repository it says so", async () => {
		expect(await gitStatus(tempDir("p2-ws-norepo-"))).toEqual({
			repo: false,
			branch: null,
			changes: [],
			truncated: false,
		});
	});

	test("staged, unstaged and untracked, relative to the session's directory inside a repository", async () => {
		const repo = tempDir("p2-ws-repo-");
		mkdirSync(join(repo, "sub"));
		writeFileSync(join(repo, "sub", "a.txt"), "one\n");
		writeFileSync(join(repo, "top.txt"), "top\n");
		git(repo, "init", "-q", "-b", "main");
		git(repo, "add", ".");
		git(repo, "commit", "-qm", "first");
		const cwd = join(repo, "sub");
		writeFileSync(join(cwd, "a.txt"), "one\ntwo\n");
		writeFileSync(join(cwd, "b.txt"), "new\n");
		writeFileSync(join(cwd, "c.txt"), "staged\n");
		git(cwd, "add", "c.txt");
		const status = await gitStatus(cwd);
		expect(status).toMatchObject({ repo: true, branch: "main", truncated: false });
		expect(status.changes).toEqual([
			{ path: "a.txt", kind: "unstaged", status: "M" },
			{ path: "c.txt", kind: "staged", status: "A" },
			{ path: "b.txt", kind: "untracked", status: "?" },
		]);
	});
});

describe("a change's diff", () => {
	test("staged, unstaged, untracked and deleted: git's hunks only; binary named; paths outside refused", async () => {
		const repo = tempDir("p2-ws-diff-");
		writeFileSync(join(repo, "a.txt"), "one\ntwo\n");
		writeFileSync(join(repo, "gone.txt"), "bye\n");
		writeFileSync(join(repo, "pic.bin"), Buffer.from([0, 1, 2]));
		git(repo, "init", "-q");
		git(repo, "add", ".");
		git(repo, "commit", "-qm", "first");
		writeFileSync(join(repo, "a.txt"), "one\nTWO\n");
		writeFileSync(join(repo, "new.txt"), "fresh\n");
		writeFileSync(join(repo, "pic.bin"), Buffer.from([0, 9, 9]));
		rmSync(join(repo, "gone.txt"));
		writeFileSync(join(repo, "staged.txt"), "added\n");
		git(repo, "add", "staged.txt");
		expect((await gitDiff(repo, "a.txt", "unstaged")).diff).toBe("@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n");
		expect((await gitDiff(repo, "staged.txt", "staged")).diff).toBe("@@ -0,0 +1 @@\n+added\n");
		expect((await gitDiff(repo, "new.txt", "untracked")).diff).toBe("@@ -0,0 +1 @@\n+fresh\n");
		expect((await gitDiff(repo, "gone.txt", "unstaged")).diff).toBe("@@ -1 +0,0 @@\n-bye\n");
		expect(await gitDiff(repo, "pic.bin", "unstaged")).toMatchObject({ binary: true, diff: "" });
		for (const path of ["../x", "/etc/passwd", "--output=/tmp/p2-pwned", "a/../../x"]) {
			await expect(gitDiff(repo, path, "unstaged")).rejects.toThrow("is not in the session's directory");
		}
	});
});

describe("search", () => {
	test("text that looks like an option is searched for, never taken as one", async () => {
		const dir = tempDir("p2-ws-opt-");
		writeFileSync(join(dir, "notes.txt"), "run with --output=x\n");
		git(dir, "init", "-q");
		expect((await grep(dir, "--output=x")).matches).toEqual([
			{ path: "notes.txt", line: 1, text: "run with --output=x" },
		]);
		rmSync(join(dir, ".git"), { recursive: true, force: true });
		expect(await grep(dir, "--output=x")).toMatchObject({ engine: "walk", matches: [{ path: "notes.txt", line: 1 }] });
	});

	test("respects .gitignore in a repository and skips hidden and build folders without one; never leaves", async () => {
		const walked = await grep(root, "NEEDLE");
		expect(walked.engine).toBe("walk");
		expect(walked.matches).toEqual([{ path: "src/main.ts", line: 2, text: "console.log('needle');" }]);
		const repo = tempDir("p2-ws-grep-");
		mkdirSync(join(repo, "gen"));
		writeFileSync(join(repo, ".gitignore"), "gen/\n");
		writeFileSync(join(repo, "gen", "x.txt"), "needle\n");
		writeFileSync(join(repo, "kept.txt"), "a needle\n");
		symlinkSync(outside, join(repo, "out"));
		git(repo, "init", "-q");
		const found = await grep(repo, "needle");
		expect(found.matches).toEqual([{ path: "kept.txt", line: 1, text: "a needle" }]);
		expect(found.truncated).toBe(false);
	});

	test("ripgrep when the server has it: its argv keeps the text an argument, its answer is read (a stand-in rg here)", async () => {
		const bin = tempDir("p2-ws-bin-");
		const dir = tempDir("p2-ws-rg-");
		// The stand-in writes its arguments where the test can read them and answers as rg --null -n does.
		writeFileSync(
			join(bin, "rg"),
			`#!/bin/sh\nprintf '%s\\n' "$@" > "${join(bin, "argv")}"\nprintf './src/a.ts\\0003:const hit = 1;\\n'\n`,
			{ mode: 0o755 },
		);
		const path = process.env.PATH;
		process.env.PATH = `${bin}:${path}`;
		try {
			const found = await grep(dir, "-e hit");
			expect(found).toEqual({
				engine: "rg",
				truncated: false,
				matches: [{ path: "src/a.ts", line: 3, text: "const hit = 1;" }],
			});
			const argv = readFileSync(join(bin, "argv"), "utf8").split("\n");
			expect(argv.slice(-5, -1)).toEqual(["--regexp", "-e hit", "--", "."]);
			expect(argv).toContain("--fixed-strings");
			expect(argv).toContain("--no-follow");
		} finally {
			process.env.PATH = path;
		}
	});

	test("bounded in matches", async () => {
		const dir = tempDir("p2-ws-many-");
		writeFileSync(join(dir, "many.txt"), "hit\n".repeat(1000));
		const found = await grep(dir, "hit");
		expect(found.matches.length).toBe(MAX_MATCHES);
		expect(found.truncated).toBe(true);
		expect(found.engine).toBe("walk");
	});

	test("bounded in time: a search that does not end is stopped and says so (a stand-in rg that never answers)", async () => {
		const bin = tempDir("p2-ws-slow-");
		writeFileSync(join(bin, "rg"), "#!/bin/sh\nexec sleep 600\n", { mode: 0o755 });
		const path = process.env.PATH;
		process.env.PATH = `${bin}:${path}`;
		try {
			expect(await grep(tempDir("p2-ws-slow-dir-"), "x", 200)).toEqual({ engine: "rg", truncated: true, matches: [] });
		} finally {
			process.env.PATH = path;
		}
	});
});

describe("who holds the workspace", () => {
	let ts: TestServer;
	let session = "";
	let cwd = "";
	const clients: TestClient[] = [];

	beforeAll(async () => {
		cwd = tempDir("p2-ws-roles-");
		writeFileSync(join(cwd, "notes.md"), "hello\n");
		ts = await startTestServer();
		const device = await ts.connect();
		clients.push(device);
		const sessions = await device.open(sessionsContract, {});
		session = (await sessions.call("create", { cwd })).id;
	});
	afterAll(async () => {
		for (const c of clients.splice(0)) c.close();
		await ts.stop();
	});

	const guest = async (access: "full" | "view") => {
		const client = await connectClient(ts.server, {
			cookie: await joinAsGuest(ts.server, clients[0]!, session, access),
		});
		clients.push(client);
		return client;
	};

	test("a view-only guest is refused the object; a full guest reads inside and is confined like everyone", async () => {
		const viewer = await guest("view");
		await expect(viewer.open(workspaceContract, { session })).rejects.toMatchObject({ code: "forbidden" });
		const full = await (await guest("full")).open(workspaceContract, { session });
		expect((await full.call("read", { path: "notes.md", line: 1, limit: 10 })).lines).toEqual(["hello"]);
		await expect(full.call("read", { path: "../", line: 1, limit: 10 })).rejects.toMatchObject({ code: "not_found" });
		await expect(full.call("list", { path: "/etc" })).rejects.toMatchObject({ code: "not_found" });
		await expect(full.call("read", { path: "notes.md", line: 1, limit: 100_000 })).rejects.toMatchObject({
			code: "bad_args",
		});
	});

	test("a session whose machine left envs.json opens; its panels say which machine is unknown", async () => {
		const gone = ts.server.ctx.catalog.create({ cwd, env: "gone" }).id;
		const ws = await clients[0]!.open(workspaceContract, { session: gone });
		await expect(ws.call("list", { path: "" })).rejects.toMatchObject({
			code: "not_found",
			message: expect.stringContaining("Unknown environment gone"),
		});
	});

	test("the counter advances when a file in the directory changes (live /changes)", async () => {
		const ws = await clients[0]!.open(workspaceContract, { session });
		const before = ws.state?.changes ?? 0;
		mkdirSync(join(cwd, "deep", "er"), { recursive: true });
		writeFileSync(join(cwd, "deep", "er", "new.txt"), "x");
		await waitForState(ws, (s) => s.changes > before);
	});
});
