import { chmodSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

/**
 * Writes JSON the launcher keeps for this person (0600, in a 0700 directory) by rename: a reader sees the
 * old file or the new one, never half of one.
 */
export function writePrivateJson(path: string, value: unknown): void {
	writePrivateText(path, `${JSON.stringify(value, null, 2)}\n`);
}

/** Writes a file the launcher keeps for this person (0600, in a 0700 directory), by rename. */
export function writePrivateText(path: string, text: string): void {
	const dir = dirname(path);
	mkdirSync(dir, { recursive: true, mode: 0o700 });
	chmodSync(dir, 0o700);
	const temp = join(dir, `.${path.slice(dir.length + 1)}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
	try {
		writeFileSync(temp, text, { mode: 0o600, flag: "wx" });
		chmodSync(temp, 0o600);
		renameSync(temp, path);
	} catch (error) {
		rmSync(temp, { force: true });
		throw error;
	}
}
