import {
	chmodSync,
	closeSync,
	fsyncSync,
	mkdirSync,
	openSync,
	readFileSync,
	renameSync,
	statSync,
	unlinkSync,
	writeSync,
} from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** The server's data directory: `P2_DATA_DIR` when set, else `~/.pi/p2`. Always absolute. */
export function resolveDataDir(env: Record<string, string | undefined> = process.env): string {
	const override = env.P2_DATA_DIR?.trim();
	if (override) return resolve(override);
	return join(env.HOME?.trim() || homedir(), ".pi", "p2");
}

/** `mkdir -p` with 0700, and tightens the folder when it already exists with a looser mode. */
export function ensurePrivateDir(path: string): void {
	mkdirSync(path, { recursive: true, mode: PRIVATE_DIR_MODE });
	const stat = statSync(path);
	if (!stat.isDirectory()) throw new Error(`not a directory: ${path}`);
	if ((stat.mode & 0o777) !== PRIVATE_DIR_MODE) chmodSync(path, PRIVATE_DIR_MODE);
}

/** Sets 0600 on a file unless it already has it. */
export function ensurePrivateFileMode(path: string): void {
	if ((statSync(path).mode & 0o777) !== PRIVATE_FILE_MODE) chmodSync(path, PRIVATE_FILE_MODE);
}

/**
 * `bytes` random bytes as hex, for a temporary file's name. Web Crypto rather than `node:crypto`, whose first
 * import costs the launcher's start ~15 ms.
 */
export function randomHex(bytes: number): string {
	return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("hex");
}

/**
 * Replaces `path` atomically: the contents go to a 0600 temp file in the same folder, are flushed, and the temp
 * file is renamed over the target, so a reader sees the old file or the new one, never a torn one.
 */
export function writePrivateFile(path: string, contents: string | Uint8Array): void {
	const temp = join(dirname(path), `.${basename(path)}.${randomHex(6)}.tmp`);
	const fd = openSync(temp, "wx", PRIVATE_FILE_MODE);
	try {
		try {
			const bytes = typeof contents === "string" ? Buffer.from(contents, "utf8") : contents;
			let written = 0;
			while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
			fsyncSync(fd);
		} finally {
			closeSync(fd);
		}
		// The umask may have narrowed the mode further; it can never have widened it, but be exact.
		chmodSync(temp, PRIVATE_FILE_MODE);
		renameSync(temp, path);
	} catch (error) {
		try {
			unlinkSync(temp);
		} catch {}
		throw error;
	}
}

/** Reads a private file as UTF-8, or returns undefined when it does not exist. */
export function readPrivateFile(path: string): string | undefined {
	try {
		return readFileSync(path, "utf8");
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
		throw error;
	}
}
