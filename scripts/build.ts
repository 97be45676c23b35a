/**
 * `bun run build` → dist/p2: one executable with the launcher, the worker bootstrap, the server and the
 * server's default guest bundle. Runs without npm, node_modules or an installed Bun.
 */
import { mkdirSync, rmSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { buildGuestBundle } from "../src/server/bundle.ts";
import { serverValidatorsModule } from "../src/server/server-validators.ts";

const root = join(import.meta.dir, "..");
const dist = process.env.P2_BUILD_OUT ?? join(root, "dist");
// The entry and the embedded bundle live inside the repository, so paths inside the executable stay relative to
// it; each build has its own folder (two builds at once, as two test runs make, must not share one).
const work = join(root, "dist", `.build-${process.pid}`);
rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });
mkdirSync(dist, { recursive: true });

const bundle = await buildGuestBundle();
await Bun.write(join(work, "guest-bundle.js"), bundle.source);

await Bun.write(join(work, "server-validators.js"), await serverValidatorsModule());

// The entry embeds the bundle as a file and hands its path, and the server's precompiled validators (loaded when
// first asked for), to the server before anything else loads.
const entry = join(work, "entry.ts");
const validators = join(work, "server-validators.js");
await Bun.write(
	entry,
	`import bundlePath from "./guest-bundle.js" with { type: "file" };
import { EMBEDDED_ROOT } from ${JSON.stringify(join(root, "src", "host", "embedded-root.ts"))};
(globalThis as { P2_EMBEDDED_BUNDLE?: string }).P2_EMBEDDED_BUNDLE = bundlePath;
// An entry point of its own, loaded only by a process that serves: the launcher does not load 200-odd validators.
Object.defineProperty(globalThis, "P2_SERVER_VALIDATORS", {
	get: () => require(\`\${EMBEDDED_ROOT}/${relative(root, validators)}\`).precompiledValidators,
});
void import(${JSON.stringify(join(root, "src", "main.ts"))});
`,
);

const result = await Bun.build({
	// main.ts (in the entry) starts the guest worker before loading cli.ts, the rest, from its own entry point.
	entrypoints: [entry, join(root, "src", "cli.ts"), join(root, "src", "host", "worker-bootstrap.ts"), validators],
	// Paths inside the executable are relative to the repository root (the sandbox names its bootstrap so).
	root,
	compile: { outfile: join(dist, "p2") },
	minify: true,
	// Bytecode starts faster and needs CommonJS; the modules were written strict, and `ses` refuses sloppy mode.
	bytecode: true,
	format: "cjs",
	banner: '"use strict";',
	sourcemap: "none",
});
if (!result.success) {
	console.error(result.logs.map(String).join("\n"));
	rmSync(work, { recursive: true, force: true });
	process.exit(1);
}

const size = (path: string) => `${(statSync(path).size / 2 ** 20).toFixed(1)} MiB`;
console.log(
	JSON.stringify({
		executable: join(dist, "p2"),
		size: size(join(dist, "p2")),
		bundle: size(join(work, "guest-bundle.js")),
	}),
);
rmSync(work, { recursive: true, force: true });
