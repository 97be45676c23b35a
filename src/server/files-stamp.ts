/**
 * This Bun and `files` as they stand, by name, size and time to the millisecond (no file is read: it is on start
 * paths). An edit changes it unless it keeps the file's size within the millisecond of the last write; what is
 * built from the files is kept under it.
 * Bun's own file calls, not `node:fs`: loading that module costs a start from source ~8 ms before the worker.
 * A missing file stamps as Bun describes it (size 0, a time no file has).
 */
export function filesStamp(files: readonly string[]): string {
	const hash = new Bun.CryptoHasher("sha256");
	hash.update(`${Bun.version}\n`);
	for (const file of files) {
		const stat = Bun.file(file);
		hash.update(`${file}:${stat.size}:${stat.lastModified}\n`);
	}
	return hash.digest("hex");
}
