import { closeSync, openSync, readSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";

const MAX_HEAD_BYTES = 4096;
const MAX_DEPTH = 64;

function readSmall(path: string): string | undefined {
	let fd: number | undefined;
	try {
		fd = openSync(path, "r");
		const buffer = Buffer.alloc(MAX_HEAD_BYTES);
		const n = readSync(fd, buffer, 0, MAX_HEAD_BYTES, 0);
		return buffer.subarray(0, n).toString("utf8");
	} catch {
		return undefined;
	} finally {
		if (fd !== undefined) closeSync(fd);
	}
}

/**
 * The git branch of a directory, as pi's footer shows it: the branch name, `detached` for a detached HEAD, or
 * null outside a repository. Read from `.git/HEAD` (a worktree's `.git` file names its git dir); no git runs.
 */
export function gitBranch(cwd: string): string | null {
	const gitDir = findGitDir(cwd);
	if (!gitDir) return null;
	const head = readSmall(join(gitDir, "HEAD"))?.trim();
	if (!head) return null;
	const ref = /^ref:\s*refs\/heads\/(.+)$/.exec(head)?.[1];
	if (ref) return ref;
	return /^[0-9a-f]{40,64}$/.test(head) ? "detached" : null;
}

/** The git directory of the repository `cwd` is in (a worktree's `.git` file names it), or undefined. */
export function findGitDir(cwd: string): string | undefined {
	let dir = resolve(cwd);
	for (let depth = 0; depth < MAX_DEPTH; depth++) {
		const dotGit = join(dir, ".git");
		let gitDir: string | undefined;
		try {
			const stat = statSync(dotGit);
			if (stat.isDirectory()) gitDir = dotGit;
			else if (stat.isFile()) {
				const pointer = /^gitdir:\s*(.+)$/m.exec(readSmall(dotGit) ?? "")?.[1]?.trim();
				if (pointer) gitDir = isAbsolute(pointer) ? pointer : resolve(dir, pointer);
			}
		} catch {
			// Not here: look in the parent.
		}
		if (gitDir) return gitDir;
		const parent = dirname(dir);
		if (parent === dir) return undefined;
		dir = parent;
	}
	return undefined;
}
