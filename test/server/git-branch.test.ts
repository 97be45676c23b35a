import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gitBranch } from "../../src/plugins/sessions/git-branch.ts";

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
