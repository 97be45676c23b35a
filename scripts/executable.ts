/**
 * One p2 executable: the launcher, the worker bootstrap, the server and the server's default guest bundle,
 * compiled by Bun for this machine or another platform (Bun fetches that platform's runtime from the npm
 * registry). The executable knows its version and the commit it was built from (`p2 --version`).
 */
import { mkdirSync, rmSync } from "node:fs";
import { join, relative } from "node:path";
import pkg from "../package.json" with { type: "json" };
import { buildGuestBundle } from "../src/server/bundle.ts";
import type { GuestBundle } from "../src/server/guest-bundle-loader.ts";
import { serverValidatorsModule } from "../src/server/server-validators.ts";

const ROOT = join(import.meta.dir, "..");

/** Bun's compile targets for the platforms p2 is released for. */
export const RELEASE_TARGETS = {
	"linux-x64": "bun-linux-x64",
	"linux-arm64": "bun-linux-arm64",
	"darwin-x64": "bun-darwin-x64",
	"darwin-arm64": "bun-darwin-arm64",
	"windows-x64": "bun-windows-x64",
} as const;
export type ReleasePlatform = keyof typeof RELEASE_TARGETS;

export interface ExecutableOptions {
	/** Where the executable goes (`.exe` is added for Windows). */
	readonly outfile: string;
	/** Another platform's; this machine's when absent. */
	readonly platform?: ReleasePlatform;
	/** The commit named by `p2 --version`; this checkout's HEAD when absent. */
	readonly commit?: string;
	/** Made once for several executables. */
	readonly bundle?: GuestBundle;
	readonly validators?: string;
}

/** The checkout's commit (short), with `-dirty` when files differ from it; `unknown` outside git. */
export function checkoutCommit(): string {
	const git = (...args: string[]) => Bun.spawnSync(["git", "-C", ROOT, ...args], { stdout: "pipe", stderr: "pipe" });
	const head = git("rev-parse", "--short=12", "HEAD");
	if (head.exitCode !== 0) return "unknown";
	const commit = head.stdout.toString().trim();
	const status = git("status", "--porcelain", "--untracked-files=no");
	return status.exitCode === 0 && status.stdout.toString().trim() !== "" ? `${commit}-dirty` : commit;
}

export async function buildExecutable(options: ExecutableOptions): Promise<string> {
	// The entry and the embedded bundle live inside the repository, so paths inside the executable stay relative to
	// it; each build has its own folder (two builds at once, as two test runs make, must not share one).
	const work = join(ROOT, "dist", `.build-${process.pid}-${Math.random().toString(36).slice(2, 8)}`);
	rmSync(work, { recursive: true, force: true });
	mkdirSync(work, { recursive: true });
	try {
		const bundle = options.bundle ?? (await buildGuestBundle());
		await Bun.write(join(work, "guest-bundle.js"), bundle.source);
		const validators = join(work, "server-validators.js");
		await Bun.write(validators, options.validators ?? (await serverValidatorsModule()));

		// The entry embeds the bundle as a file and hands its path, and the server's precompiled validators (loaded
		// when first asked for), to the server before anything else loads.
		const entry = join(work, "entry.ts");
		await Bun.write(
			entry,
			`import bundlePath from "./guest-bundle.js" with { type: "file" };
import { EMBEDDED_ROOT } from ${JSON.stringify(join(ROOT, "src", "host", "embedded-root.ts"))};
(globalThis as { P2_EMBEDDED_BUNDLE?: string }).P2_EMBEDDED_BUNDLE = bundlePath;
// An entry point of its own, loaded only by a process that serves: the launcher does not load 200-odd validators.
Object.defineProperty(globalThis, "P2_SERVER_VALIDATORS", {
	get: () => require(\`\${EMBEDDED_ROOT}/${relative(ROOT, validators)}\`).precompiledValidators,
});
void import(${JSON.stringify(join(ROOT, "src", "main.ts"))});
`,
		);
		const windows = options.platform === "windows-x64";
		const outfile = windows && !options.outfile.endsWith(".exe") ? `${options.outfile}.exe` : options.outfile;
		const result = await Bun.build({
			// main.ts (in the entry) starts the guest worker before loading cli.ts, the rest, from its own entry point.
			entrypoints: [entry, join(ROOT, "src", "cli.ts"), join(ROOT, "src", "host", "worker-bootstrap.ts"), validators],
			// Paths inside the executable are relative to the repository root (the sandbox names its bootstrap so).
			root: ROOT,
			compile: {
				outfile,
				...(options.platform ? { target: RELEASE_TARGETS[options.platform] } : {}),
			},
			define: { P2_BUILD_COMMIT: JSON.stringify(options.commit ?? checkoutCommit()) },
			minify: true,
			// Bytecode starts faster and needs CommonJS; the modules were written strict, and `ses` refuses sloppy mode.
			bytecode: true,
			format: "cjs",
			banner: '"use strict";',
			sourcemap: "none",
		});
		if (!result.success) throw new Error(result.logs.map(String).join("\n"));
		return outfile;
	} finally {
		rmSync(work, { recursive: true, force: true });
	}
}

export const VERSION = pkg.version;
