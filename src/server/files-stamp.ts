import { statSync } from "node:fs";

/**
 * This Bun and `files` as they stand, by name, size and time (no file is read: it is on start paths). Any edit
 * changes it (no edit keeps both a file's size and its time); what is built from the files is kept under it.
 */
export function filesStamp(files: readonly string[]): string {
	const hash = new Bun.CryptoHasher("sha256");
	hash.update(`${Bun.version}\n`);
	for (const file of files) {
		try {
			const stat = statSync(file, { bigint: true });
			hash.update(`${file}:${stat.size}:${stat.mtimeNs}\n`);
		} catch {
			hash.update(`${file}:-\n`);
		}
	}
	return hash.digest("hex");
}
