/**
 * What a server run from source makes from its sources (the UI bundle, the precompiled validators), kept in
 * `node_modules/.cache/<what>/<stamp>.js` so the next start reads it instead of making it again.
 */
import { mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The file `key` is kept under in `cacheDir`. */
export function cachedPath(cacheDir: string, key: string): string {
	return join(cacheDir, `${key}.js`);
}

/**
 * Keeps `text` under `key` (written whole, then renamed, so a reader never sees half of it) and removes all but
 * the two newest others. False when it could not be written: the next start makes it again.
 */
export function keepMade(cacheDir: string, key: string, text: string): boolean {
	const path = cachedPath(cacheDir, key);
	try {
		mkdirSync(cacheDir, { recursive: true });
		const temp = `${path}.${process.pid}.tmp`;
		writeFileSync(temp, text);
		renameSync(temp, path);
		const old = readdirSync(cacheDir)
			.filter((name) => name.endsWith(".js") && name !== `${key}.js`)
			.map((name) => ({ name, at: statSync(join(cacheDir, name)).mtimeMs }))
			.sort((a, b) => b.at - a.at);
		for (const { name } of old.slice(2)) rmSync(join(cacheDir, name), { force: true });
		return true;
	} catch {
		return false;
	}
}
