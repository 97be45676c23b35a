/**
 * What a server run from source makes from its sources (the UI bundle, the precompiled validators), kept in
 * `node_modules/.cache/<what>/<stamp>.js` so the next start reads it instead of making it again.
 */
import { mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const MAKER = join(import.meta.dir, "make-from-sources.ts");

/**
 * What `make-from-sources.ts` makes, made by a process of its own (so this one does not keep what making it
 * loaded). Throws with the maker's errors when it fails.
 */
export async function makeInChild(what: "bundle" | "validators"): Promise<string> {
	const child = Bun.spawn([process.execPath, MAKER, what], {
		cwd: join(import.meta.dir, "..", ".."),
		stdin: "ignore",
		stdout: "pipe",
		stderr: "pipe",
	});
	const [made, errors, code] = await Promise.all([
		new Response(child.stdout).text(),
		new Response(child.stderr).text(),
		child.exited,
	]);
	if (code !== 0 || made === "") throw new Error(`making the ${what} failed (exit ${code}):\n${errors.trim()}`);
	return made;
}

/** The file `key` is kept under in `cacheDir`. */
export function cachedPath(cacheDir: string, key: string): string {
	return join(cacheDir, `${key}.js`);
}

/**
 * Keeps `text` under `key` (written whole, then renamed, so a reader never sees half of it), with its `bytecode`
 * beside it when given (written first: the script, once there, is read with it), and removes all but the two
 * newest others (with their bytecode). False when it could not be written: the next start makes it again.
 */
export function keepMade(cacheDir: string, key: string, text: string, bytecode?: Uint8Array): boolean {
	const path = cachedPath(cacheDir, key);
	const written = (file: string, data: string | Uint8Array) => {
		const temp = `${file}.${process.pid}.tmp`;
		try {
			writeFileSync(temp, data);
			renameSync(temp, file);
		} finally {
			rmSync(temp, { force: true });
		}
	};
	try {
		mkdirSync(cacheDir, { recursive: true });
		if (bytecode) written(`${path}.jsc`, bytecode);
		written(path, text);
		const old = readdirSync(cacheDir)
			.filter((name) => name.endsWith(".js") && name !== `${key}.js`)
			.map((name) => ({ name, at: statSync(join(cacheDir, name)).mtimeMs }))
			.sort((a, b) => b.at - a.at);
		for (const { name } of old.slice(2)) {
			rmSync(join(cacheDir, name), { force: true });
			// What was kept beside it (a script's bytecode).
			rmSync(join(cacheDir, `${name}.jsc`), { force: true });
		}
		return true;
	} catch {
		return false;
	}
}
