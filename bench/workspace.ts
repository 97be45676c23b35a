// Workspace benchmark on this device's Environment: the time to list a 20,000-file directory and to search it
// (git grep inside a repository, grep -r outside one; ripgrep when the server has it), and a page deep in a large
// file. Prints JSON. `bun bench/workspace.ts`
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SessionDirectory } from "../src/plugins/workspace/directory.ts";
import { LocalEnvironment } from "../src/server/env/local.ts";

const directory = new SessionDirectory(new LocalEnvironment());

const FILES = 20_000;
const RUNS = 5;

function stats(samples: number[]) {
	const sorted = [...samples].sort((a, b) => a - b);
	const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
	const round = (n: number) => Math.round(n * 10) / 10;
	return { runs: samples.length, medianMs: round(at(0.5)), maxMs: round(at(1)) };
}

async function time(fn: () => unknown): Promise<number[]> {
	const samples: number[] = [];
	for (let i = 0; i < RUNS; i++) {
		const start = performance.now();
		await fn();
		samples.push(performance.now() - start);
	}
	return samples;
}

const root = mkdtempSync(join(tmpdir(), "p2-bench-ws-"));
try {
	// One flat folder of 20,000 small files (the listing), one match in every hundredth.
	const flat = join(root, "flat");
	mkdirSync(flat);
	for (let i = 0; i < FILES; i++) {
		writeFileSync(join(flat, `file-${i}.ts`), `export const n${i} = ${i};\n${i % 100 === 0 ? "// needle\n" : ""}`);
	}
	const big = join(root, "big.txt");
	writeFileSync(big, Array.from({ length: 1_000_000 }, (_, i) => `line ${i + 1} of a large file`).join("\n"));

	const list = stats(await time(() => directory.list(root, "flat", false)));
	const listRepoless = list;
	const walk = stats(await time(() => directory.grep(root, "needle", 30_000)));
	const page = stats(await time(() => directory.read(root, "big.txt", 900_000, 200)));
	Bun.spawnSync(["git", "init", "-q"], { cwd: root });
	const listInRepo = stats(await time(() => directory.list(root, "flat", false)));
	const gitGrep = stats(await time(() => directory.grep(root, "needle")));
	const found = (await directory.grep(root, "needle")).matches.length;
	console.log(
		JSON.stringify(
			{
				bench: "workspace",
				files: FILES,
				rg: Bun.which("rg") !== null,
				listMs: listRepoless,
				listInGitRepoMs: listInRepo,
				grepWalkMs: walk,
				grepMs: gitGrep,
				matchesShown: found,
				pageAtLine900kMs: page,
			},
			null,
			2,
		),
	);
} finally {
	rmSync(root, { recursive: true, force: true });
}
