/**
 * A session's files copied for its clone: a plugin's folder of one session (uploads, artifacts) into the same
 * folder of another. Folders are made 0700 and files 0600, as the server keeps them; symbolic links and
 * anything that is not a plain file or folder are skipped, and nothing already there is overwritten.
 */
import { chmodSync, constants, copyFileSync, lstatSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";

/** Copies `from` into `to` (made when missing); a missing `from` copies nothing. Returns how many files it copied. */
export function copyPrivateDir(from: string, to: string): number {
	let names: string[];
	try {
		names = readdirSync(from);
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "ENOENT") return 0;
		throw error;
	}
	mkdirSync(to, { recursive: true, mode: 0o700 });
	let copied = 0;
	for (const name of names) {
		const source = join(from, name);
		const stat = lstatSync(source);
		if (stat.isDirectory()) copied += copyPrivateDir(source, join(to, name));
		else if (stat.isFile()) {
			const target = join(to, name);
			copyFileSync(source, target, constants.COPYFILE_EXCL);
			chmodSync(target, 0o600);
			copied++;
		}
	}
	return copied;
}
