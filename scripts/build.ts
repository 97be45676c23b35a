/**
 * `bun run build` → dist/p2: one executable for this machine (see `executable.ts`). Runs without npm,
 * node_modules or an installed Bun.
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import { buildExecutable } from "./executable.ts";

const dist = process.env.P2_BUILD_OUT ?? join(import.meta.dir, "..", "dist");
try {
	const executable = await buildExecutable({ outfile: join(dist, "p2") });
	console.log(JSON.stringify({ executable, size: `${(statSync(executable).size / 2 ** 20).toFixed(1)} MiB` }));
} catch (error) {
	console.error(error instanceof Error ? error.message : String(error));
	process.exit(1);
}
