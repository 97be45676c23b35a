/**
 * From source, the guest worker's bootstrap is `worker-bootstrap.ts` and `ses`: a hundred-odd ES modules that a
 * worker loads in ~90 ms, against ~60 for the same code built as one CommonJS script. The built script is kept in
 * `node_modules/.cache/p2-worker-bootstrap/` under a key of its inputs (this Bun, the lock file, the builder and the
 * bootstrap's own sources, by size and time); a start that finds none for the current inputs loads the sources
 * and builds the script a little later, for the next start. The executable has its bootstrap built in and never
 * comes here. This module is read before the worker starts, so it imports almost nothing.
 */
import { filesStamp } from "./server/files-stamp.ts";

// No `node:fs` or `node:path` here (together ~11 ms to load from source): Bun's own calls, and paths by hand.
export const ROOT = import.meta.dir.slice(0, import.meta.dir.lastIndexOf("/"));
export const BOOTSTRAP_SOURCE = `${ROOT}/src/host/worker-bootstrap.ts`;
export const BOOTSTRAP_CACHE = `${ROOT}/node_modules/.cache/p2-worker-bootstrap`;
/**
 * The file in a cache folder that lists the bootstrap's sources (outside node_modules) as this checkout's last
 * build saw them. Named for the checkout: checkouts that share node_modules (by a link) keep their own lists,
 * so none starts a bootstrap built from another's sources.
 */
export const INPUTS_FILE = `inputs-${new Bun.CryptoHasher("sha256").update(ROOT).digest("hex").slice(0, 16)}.json`;
/** Long enough after a start that building competes with nothing the person waits for. */
const BUILD_DELAY_MS = 3000;

/** The key of a build from `inputs` (and by the builder as it stands: a changed recipe builds again). */
export function bootstrapKey(inputs: readonly string[]): string {
	return filesStamp([`${ROOT}/package-lock.json`, `${ROOT}/src/dev-bootstrap-build.ts`, ...inputs]);
}

function lastInputs(cacheDir: string): string[] | undefined {
	try {
		const inputs: unknown = JSON.parse(new TextDecoder().decode(Bun.mmap(`${cacheDir}/${INPUTS_FILE}`)));
		return Array.isArray(inputs) && inputs.every((i) => typeof i === "string") ? inputs : undefined;
	} catch {
		return undefined;
	}
}

let buildScheduled = false;

/**
 * The built bootstrap for the sources as they stand, else the source itself (and, with `buildLater`, a build
 * for next time).
 */
export function devBootstrap(cacheDir = BOOTSTRAP_CACHE, buildLater = true): string {
	const inputs = lastInputs(cacheDir);
	if (inputs) {
		const path = `${cacheDir}/${bootstrapKey(inputs)}.js`;
		// Not built for these sources: size 0 (as a missing file has).
		if (Bun.file(path).size > 0) return path;
	}
	if (buildLater && !buildScheduled) {
		buildScheduled = true;
		// Named by a computed path: the executable's bundler leaves the builder out (it never builds).
		const builder = new URL("./dev-bootstrap-build.ts", import.meta.url).href;
		setTimeout(
			() =>
				void import(builder)
					.then(({ buildBootstrap }: typeof import("./dev-bootstrap-build.ts")) => buildBootstrap(cacheDir))
					.catch(() => {}),
			BUILD_DELAY_MS,
		).unref();
	}
	return BOOTSTRAP_SOURCE;
}
