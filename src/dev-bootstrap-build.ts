import { renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BOOTSTRAP_CACHE, BOOTSTRAP_SOURCE, bootstrapKey, INPUTS_FILE, ROOT } from "./dev-bootstrap.ts";
import { keepMade } from "./server/sources-cache.ts";

/**
 * Builds the worker's bootstrap into one script for `devBootstrap` (see there): CommonJS and strict, as the
 * executable builds it (`ses` refuses sloppy mode).
 */
export async function buildBootstrap(cacheDir = BOOTSTRAP_CACHE): Promise<void> {
	const result = await Bun.build({
		entrypoints: [BOOTSTRAP_SOURCE],
		target: "bun",
		format: "cjs",
		banner: '"use strict";',
		minify: true,
		metafile: true,
	});
	const output = result.outputs[0];
	if (!result.success || !output) return;
	const inputs = Object.keys(result.metafile?.inputs ?? {})
		.map((path) => join(ROOT, path))
		.filter((path) => !path.includes("/node_modules/"))
		.sort();
	if (!keepMade(cacheDir, bootstrapKey(inputs), await output.text())) return;
	// Written after the script it names, whole, then renamed: a reader never finds a list whose script is missing.
	const list = join(cacheDir, INPUTS_FILE);
	const temp = `${list}.${process.pid}.tmp`;
	writeFileSync(temp, JSON.stringify(inputs));
	renameSync(temp, list);
}
