import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gitBranch } from "../../../src/plugins/sessions/git-branch.ts";

const root = mkdtempSync(join(tmpdir(), "p2-git-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

test("the branch from .git/HEAD, found from a subdirectory; detached; a worktree's .git file; none outside", () => {
	const repo = join(root, "repo");
	mkdirSync(join(repo, ".git"), { recursive: true });
	mkdirSync(join(repo, "src", "deep"), { recursive: true });
	writeFileSync(join(repo, ".git", "HEAD"), "ref: refs/heads/feature/x\n");
	expect(gitBranch(join(repo, "src", "deep"))).toBe("feature/x");
	writeFileSync(join(repo, ".git", "HEAD"), `${"a".repeat(40)}\n`);
	expect(gitBranch(repo)).toBe("detached");

	const worktree = join(root, "wt");
	mkdirSync(join(root, "gitdirs", "wt"), { recursive: true });
	mkdirSync(worktree);
	writeFileSync(join(worktree, ".git"), "gitdir: ../gitdirs/wt\n");
	writeFileSync(join(root, "gitdirs", "wt", "HEAD"), "ref: refs/heads/main\n");
	expect(gitBranch(worktree)).toBe("main");

	const plain = join(root, "plain");
	mkdirSync(plain);
	expect(gitBranch(plain)).toBeNull();
	expect(gitBranch(join(root, "missing"))).toBeNull();
});

test("while a session is open, a checkout shows in its row at once (its HEAD is watched), not after the next run", async () => {
	const { startTestServer, waitForState } = await import("../../support/p2-server.ts");
	const { sessionsContract } = await import("../../../src/plugins/sessions/contract.ts");
	const { chatContract } = await import("../../../src/plugins/chat/contract.ts");
	const { mkdirSync, mkdtempSync, realpathSync, renameSync, rmSync, writeFileSync } = await import("node:fs");
	const { tmpdir } = await import("node:os");
	const repo = realpathSync(mkdtempSync(join(tmpdir(), "p2-watch-")));
	mkdirSync(join(repo, ".git"));
	writeFileSync(join(repo, ".git", "HEAD"), "ref: refs/heads/main\n");
	const ts = await startTestServer();
	try {
		const c = await ts.connect();
		const sessions = await c.open(sessionsContract, {});
		const id = (await sessions.call("create", { cwd: repo })).id;
		await waitForState(sessions, (s) => s.sessions.find((r) => r.id === id)?.branch === "main");
		// Opening the conversation starts the watch before the open is answered.
		await c.open(chatContract, { session: id, conversation: "main" });
		// git writes HEAD through a lock file and a rename.
		writeFileSync(join(repo, ".git", "HEAD.lock"), "ref: refs/heads/feature/live\n");
		renameSync(join(repo, ".git", "HEAD.lock"), join(repo, ".git", "HEAD"));
		await waitForState(sessions, (s) => s.sessions.find((r) => r.id === id)?.branch === "feature/live");
	} finally {
		await ts.stop();
		rmSync(repo, { recursive: true, force: true });
	}
});

test("a view guest's row carries no branch, live or after a change of access; a full guest's does", async () => {
	const { connectClient, startTestServer, waitForState } = await import("../../support/p2-server.ts");
	const { joinAsGuest } = await import("../../support/guests.ts");
	const { sessionsContract } = await import("../../../src/plugins/sessions/contract.ts");
	const { sharingContract } = await import("../../../src/plugins/sharing/contract.ts");
	const { realpathSync } = await import("node:fs");
	const repo = realpathSync(mkdtempSync(join(tmpdir(), "p2-view-branch-")));
	mkdirSync(join(repo, ".git"));
	writeFileSync(join(repo, ".git", "HEAD"), "ref: refs/heads/main\n");
	const ts = await startTestServer();
	try {
		const owner = await ts.connect();
		const catalog = await owner.open(sessionsContract, {});
		const id = (await catalog.call("create", { cwd: repo })).id;
		const viewer = await connectClient(ts.server, { cookie: await joinAsGuest(ts.server, owner, id, "view", "vi") });
		const worker = await connectClient(ts.server, { cookie: await joinAsGuest(ts.server, owner, id, "full", "fu") });
		const viewed = await viewer.open(sessionsContract, {});
		const worked = await worker.open(sessionsContract, {});
		expect(viewed.state?.sessions).toMatchObject([{ id, cwd: repo, branch: null }]);
		expect(worked.state?.sessions).toMatchObject([{ id, branch: "main" }]);

		// A checkout, published with the next change of the row, reaches the full guest, never the view guest.
		const framesBefore = viewer.frames.length;
		writeFileSync(join(repo, ".git", "HEAD"), "ref: refs/heads/feature/live\n");
		await catalog.call("rename", { id, title: "renamed" });
		await waitForState(worked, (s) => s.sessions[0]?.branch === "feature/live");
		const seen = await waitForState(viewed, (s) => s.sessions[0]?.title === "renamed");
		expect(seen.sessions[0]?.branch).toBeNull();
		expect(viewer.frames.slice(framesBefore).join("\n")).not.toContain("feature/live");

		// The owner demotes the full guest: the branch goes at once; promoted again, it is back.
		const sharing = await owner.open(sharingContract, { session: id });
		const fu = (await waitForState(sharing, (s) => s.guests.some((g) => g.name === "fu"))).guests.find(
			(g) => g.name === "fu",
		)!;
		await sharing.call("setAccess", { guest: fu.id, access: "view" });
		await waitForState(worked, (s) => s.sessions[0]?.branch === null);
		await sharing.call("setAccess", { guest: fu.id, access: "full" });
		await waitForState(worked, (s) => s.sessions[0]?.branch === "feature/live");
		viewer.close();
		worker.close();
	} finally {
		await ts.stop();
		rmSync(repo, { recursive: true, force: true });
	}
});
