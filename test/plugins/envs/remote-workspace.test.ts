/**
 * The workspace panels of a session on an SSH machine (a real sshd): listing, pages, git status and diffs,
 * search, and the same confinement as on this device, through the Workspace object of a real server.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sessionsContract } from "../../../src/plugins/sessions/contract.ts";
import { workspaceContract } from "../../../src/plugins/workspace/contract.ts";
import { startTestServer, type TestServer, waitForState } from "../../support/p2-server.ts";
import { findSshd, TestSshd } from "../../support/sshd.ts";

const sshdPath = findSshd();

describe.skipIf(!sshdPath)("the workspace of a session on an SSH machine", () => {
	let sshd: TestSshd;
	let ts: TestServer;
	let work: string;

	beforeAll(async () => {
		sshd = await TestSshd.start(sshdPath!);
		work = join(sshd.home, "repo");
		mkdirSync(join(work, "src"), { recursive: true });
		writeFileSync(join(work, "src", "a.ts"), "one\ntwo needle\nthree\n");
		writeFileSync(join(work, "notes.md"), "first\n");
		writeFileSync(join(work, "bin.dat"), Buffer.from([1, 0, 2, 3]));
		writeFileSync(join(sshd.home, "secret.txt"), "outside\n");
		symlinkSync(join(sshd.home, "secret.txt"), join(work, "leak"));
		const git = (...args: string[]) =>
			Bun.spawnSync(["git", "-c", "user.email=t@t", "-c", "user.name=t", ...args], { cwd: work });
		git("init", "-q");
		git("add", "src/a.ts");
		git("commit", "-qm", "first");
		writeFileSync(join(work, "src", "a.ts"), "one\ntwo needle\nthree changed\n");
		ts = await startTestServer();
		writeFileSync(join(ts.dataDir, "envs.json"), JSON.stringify({ environments: [sshd.entry("box")] }));
		const envs = ts.server.ctx.environments;
		envs.reload();
		const result = await envs.test("box");
		if (!result.ok && result.hostKey) {
			envs.acceptKey(
				"box",
				result.hostKey.offered.map((k) => k.fingerprint),
			);
		}
	});
	afterAll(async () => {
		await ts?.stop();
		await sshd?.stop();
	});

	test("listing, pages, status, diffs and search come from the machine; nothing outside is read", async () => {
		const owner = await ts.connect();
		const sessions = await owner.open(sessionsContract, {});
		const row = await sessions.call("create", { cwd: "~/repo", env: "box" });
		const ws = await owner.open(workspaceContract, { session: row.id });
		// The footer's branch comes from the machine too.
		const branch = Bun.spawnSync(["git", "symbolic-ref", "--short", "HEAD"], { cwd: work }).stdout.toString().trim();
		await waitForState(sessions, (s) => s.sessions.find((r) => r.id === row.id)?.branch === branch);
		const listed = await ws.call("list", { path: "" });
		expect(listed.entries.map((e) => [e.name, e.dir, e.link])).toEqual([
			["src", true, false],
			["bin.dat", false, false],
			["leak", false, true],
			["notes.md", false, false],
		]);
		expect(listed.entries.find((e) => e.name === "notes.md")?.size).toBe(6);
		const page = await ws.call("read", { path: "src/a.ts", line: 1, limit: 10, find: "NEEDLE" });
		expect(page).toMatchObject({ path: "src/a.ts", binary: false, line: 2, lines: ["two needle", "three changed"] });
		expect(await ws.call("read", { path: "bin.dat", line: 1, limit: 10 })).toMatchObject({ binary: true, lines: [] });
		await expect(ws.call("read", { path: "leak", line: 1, limit: 10 })).rejects.toMatchObject({ code: "not_found" });
		await expect(ws.call("read", { path: "../secret.txt", line: 1, limit: 10 })).rejects.toMatchObject({
			code: "not_found",
		});
		const status = await ws.call("status", null);
		expect(status.repo).toBe(true);
		expect(status.changes).toContainEqual({ path: "src/a.ts", kind: "unstaged", status: "M" });
		expect(status.changes).toContainEqual({ path: "notes.md", kind: "untracked", status: "?" });
		const diff = await ws.call("diff", { path: "src/a.ts", kind: "unstaged" });
		expect(diff.diff).toContain("-three\n+three changed");
		await expect(ws.call("diff", { path: "../secret.txt", kind: "unstaged" })).rejects.toMatchObject({
			code: "not_found",
		});
		const found = await ws.call("grep", { text: "needle" });
		expect(found.matches).toEqual([{ path: "src/a.ts", line: 2, text: "two needle" }]);
		expect(found.engine).toBe("git");
		// Outside a repository: grep -r there, hidden folders skipped.
		mkdirSync(join(sshd.home, ".hidden"), { recursive: true });
		writeFileSync(join(sshd.home, ".hidden", "x.txt"), "outside too\n");
		const home = await sessions.call("create", { cwd: "~", env: "box" });
		const wsHome = await owner.open(workspaceContract, { session: home.id });
		const walked = await wsHome.call("grep", { text: "OUTSIDE" });
		expect(walked).toMatchObject({ engine: "walk", matches: [{ path: "secret.txt", line: 1, text: "outside" }] });
		// The counter advances when a command there ends (nothing watches another machine's files).
		const before = ws.state?.changes ?? 0;
		ts.server.ctx.bus.emit({ type: "session.busy", session: row.id, busy: false });
		await waitForState(ws, (s) => s.changes > before);
		// Some twenty commands over SSH: about five seconds here, more on a loaded machine.
	}, 60_000);
});
