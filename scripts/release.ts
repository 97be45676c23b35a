/**
 * `npm run release` → dist/release/: p2 for every platform it is released for, each archived as people expect
 * (`p2-<platform>.tar.gz`, a `.zip` for Windows) with the executable at the archive's root, `release.json`
 * (the version, the commit, the archives), `install.sh`, and `SHA256SUMS` over all of them (`sha256sum -c`
 * reads it). Archives
 * are made with the system's `tar` and `zip`. Prints each executable's size beside a bare Bun executable's for
 * the same platform.
 *
 * `bun scripts/release.ts [out] [platform …]` makes only the platforms named.
 */
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { buildGuestBundle } from "../src/server/bundle.ts";
import { serverValidatorsModule } from "../src/server/server-validators.ts";
import { buildExecutable, checkoutCommit, RELEASE_TARGETS, type ReleasePlatform, VERSION } from "./executable.ts";

export interface Release {
	readonly version: string;
	readonly commit: string;
	/** The archive of each platform, by file name. */
	readonly archives: Partial<Record<ReleasePlatform, string>>;
}

export const RELEASE_FILE = "release.json";
export const SUMS_FILE = "SHA256SUMS";
/** The installer, beside the archives it installs. */
export const INSTALLER = "install.sh";

export function archiveName(platform: ReleasePlatform): string {
	return platform.startsWith("windows") ? `p2-${platform}.zip` : `p2-${platform}.tar.gz`;
}

function run(cmd: string[], cwd: string): void {
	const done = Bun.spawnSync(cmd, { cwd, stdout: "pipe", stderr: "pipe" });
	if (done.exitCode !== 0) throw new Error(`${cmd.join(" ")} failed: ${done.stderr.toString().trim()}`);
}

function sha256(path: string): string {
	return new Bun.CryptoHasher("sha256").update(readFileSync(path)).digest("hex");
}

/** Puts the executable alone at the root of its archive, owned by nobody in particular, mode 0755. */
function archive(executable: string, platform: ReleasePlatform, out: string): string {
	const name = archiveName(platform);
	const dir = dirname(executable);
	chmodSync(executable, 0o755);
	if (name.endsWith(".zip")) run(["zip", "-q", "-X", join(out, name), basename(executable)], dir);
	else run(["tar", "-czf", join(out, name), "--owner=0", "--group=0", "--numeric-owner", basename(executable)], dir);
	return name;
}

export async function makeRelease(
	out: string,
	platforms: readonly ReleasePlatform[] = Object.keys(RELEASE_TARGETS) as ReleasePlatform[],
): Promise<{ release: Release; sizes: Record<string, { p2MiB: number; bareBunMiB: number; ratio: number }> }> {
	rmSync(out, { recursive: true, force: true });
	mkdirSync(out, { recursive: true });
	const work = join(out, ".work");
	const commit = checkoutCommit();
	const bundle = await buildGuestBundle();
	const validators = await serverValidatorsModule();
	const archives: Partial<Record<ReleasePlatform, string>> = {};
	const sizes: Record<string, { p2MiB: number; bareBunMiB: number; ratio: number }> = {};
	const mib = (path: string) => Number((statSync(path).size / 2 ** 20).toFixed(1));
	try {
		for (const platform of platforms) {
			const dir = join(work, platform);
			mkdirSync(dir, { recursive: true });
			const executable = await buildExecutable({ outfile: join(dir, "p2"), platform, commit, bundle, validators });
			archives[platform] = archive(executable, platform, out);
			const bare = await bareBun(platform, join(work, `${platform}-bare`));
			sizes[platform] = { p2MiB: mib(executable), bareBunMiB: mib(bare), ratio: 0 };
			sizes[platform].ratio = Number((statSync(executable).size / statSync(bare).size).toFixed(3));
		}
	} finally {
		rmSync(work, { recursive: true, force: true });
	}
	const release: Release = { version: VERSION, commit, archives };
	writeFileSync(join(out, RELEASE_FILE), `${JSON.stringify(release, null, 2)}\n`);
	copyFileSync(join(import.meta.dir, "..", INSTALLER), join(out, INSTALLER));
	const files = [...Object.values(archives), RELEASE_FILE, INSTALLER].sort();
	writeFileSync(join(out, SUMS_FILE), files.map((file) => `${sha256(join(out, file))}  ${file}\n`).join(""));
	return { release, sizes };
}

/** A Bun executable of an empty program, for the platform: what p2's executable is measured against. */
async function bareBun(platform: ReleasePlatform, dir: string): Promise<string> {
	mkdirSync(dir, { recursive: true });
	const entry = join(dir, "bare.ts");
	writeFileSync(entry, "export {};\n");
	const outfile = join(dir, platform.startsWith("windows") ? "bare.exe" : "bare");
	const result = await Bun.build({ entrypoints: [entry], compile: { outfile, target: RELEASE_TARGETS[platform] } });
	if (!result.success) throw new Error(result.logs.map(String).join("\n"));
	return outfile;
}

if (import.meta.main) {
	const [outArg, ...named] = process.argv.slice(2);
	const out = outArg ?? join(import.meta.dir, "..", "dist", "release");
	const known = Object.keys(RELEASE_TARGETS);
	const unknown = named.filter((p) => !known.includes(p));
	if (unknown.length > 0) {
		console.error(`release: unknown platform ${unknown.join(", ")} (known: ${known.join(", ")})`);
		process.exit(2);
	}
	try {
		const made = await makeRelease(out, named.length > 0 ? (named as ReleasePlatform[]) : undefined);
		console.log(JSON.stringify({ out, ...made }, null, 2));
	} catch (error) {
		console.error(`release: ${error instanceof Error ? error.message : String(error)}`);
		process.exit(1);
	}
}
