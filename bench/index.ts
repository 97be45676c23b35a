// Runs every benchmark in turn; each prints its own JSON. `bun bench/index.ts [name…]`
import { readdirSync } from "node:fs";
import { join } from "node:path";

const dir = import.meta.dir;
const wanted = new Set(process.argv.slice(2));
const benches = readdirSync(dir)
	.filter((f) => f.endsWith(".ts") && f !== "index.ts")
	.filter((f) => wanted.size === 0 || wanted.has(f.replace(/\.ts$/, "")));
let failed = false;
for (const file of benches) {
	console.log(`# ${file}`);
	const proc = Bun.spawn([process.execPath, join(dir, file)], { stdout: "inherit", stderr: "inherit" });
	if ((await proc.exited) !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
