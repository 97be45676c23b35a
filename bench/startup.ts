/**
 * Start-up beside pi 1.6.0 (issue 19): time from launch to the first full frame — the header, the editor and
 * the footer naming the model — for `npm start` (from source) and the executable, each cold (no server
 * running) and warm (this device's server already running), against pi `--offline` in an empty HOME and in
 * a used one. Runs are interleaved; medians, ratios to pi, the load average, and p2's start-up timeline
 * (from P2_TIMELINE) are printed as JSON. Run: PI_CLI=/path/to/pi/dist/bundle/cli.js bun bench/startup.ts [runs]
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { stopDeviceServer } from "../test/support/device-server.ts";
import { startFakeOpenAI, writeFakeModelsJson } from "../test/support/fake-openai.ts";
import { runInPty } from "../test/support/pty.ts";

const ROOT = join(import.meta.dir, "..");
const MAIN = join(ROOT, "src", "main.ts");
const RUNS = Number(process.argv[2] ?? 7);
const piCli = process.env.PI_CLI;

const median = (xs: number[]) => {
	const s = [...xs].sort((a, b) => a - b);
	return s.length ? s[Math.floor(s.length / 2)]! : Number.NaN;
};
const round = (n: number) => Math.round(n);

const fake = await startFakeOpenAI();
const work = mkdtempSync(join(tmpdir(), "p2-bench-startup-"));

/** A HOME where p2 finds its model through its data directory's models.json. */
function p2Home(name: string) {
	const home = join(work, name);
	const data = join(home, "data");
	mkdirSync(data, { recursive: true, mode: 0o700 });
	writeFakeModelsJson(data, fake.baseUrl);
	return { home, data, env: { PATH: process.env.PATH ?? "", HOME: home, P2_DATA_DIR: data, TERM: "xterm-256color" } };
}

/** A HOME where pi finds the same fake model (its agent directory's models.json and settings.json). */
function piHome(name: string) {
	const home = join(work, name);
	const agent = join(home, ".pi", "agent");
	mkdirSync(agent, { recursive: true });
	writeFakeModelsJson(agent, fake.baseUrl);
	writeFileSync(join(agent, "settings.json"), JSON.stringify({ defaultProvider: "fake", defaultModel: "fake-model" }));
	return { home, env: { PATH: process.env.PATH ?? "", HOME: home, TERM: "xterm-256color" } };
}

/** Ready: the header, the editor's border and the footer naming the model are all on screen. */
const READY = (s: string) => s.includes("─") && s.includes("fake-model");
const HEADER_P2 = (s: string) => s.includes("this device") && s.includes("─");
const HEADER_PI = (s: string) => s.includes("escape interrupt") && s.includes("─");

interface Sample {
	readonly headerMs: number;
	readonly readyMs: number;
	readonly timeline?: Record<string, number>;
}

async function measure(
	cmd: string[],
	env: Record<string, string>,
	cwd: string,
	header: (s: string) => boolean,
	timelineFile?: string,
): Promise<Sample> {
	if (timelineFile) rmSync(timelineFile, { force: true });
	const start = performance.now();
	const run = runInPty(cmd, {
		env: timelineFile ? { ...env, P2_TIMELINE: timelineFile } : env,
		cols: 120,
		rows: 40,
		cwd,
	});
	let headerMs = Number.NaN;
	await run.waitFor(
		(s) => {
			if (Number.isNaN(headerMs) && header(s)) headerMs = performance.now() - start;
			return READY(s);
		},
		"the first full frame",
		30_000,
	);
	const readyMs = performance.now() - start;
	run.type("\x04");
	await Promise.race([run.exited, Bun.sleep(5000).then(() => run.kill())]);
	let timeline: Record<string, number> | undefined;
	if (timelineFile) {
		try {
			timeline = JSON.parse(readFileSync(timelineFile, "utf8").trim().split("\n").at(-1) ?? "{}");
		} catch {
			timeline = undefined;
		}
	}
	return { headerMs, readyMs, ...(timeline ? { timeline } : {}) };
}

// The executable, built once.
const exeDir = join(work, "exe");
await Bun.spawn([process.execPath, join(ROOT, "scripts", "build.ts")], {
	env: { ...process.env, P2_BUILD_OUT: exeDir },
	stdout: "ignore",
}).exited;
const exe = join(exeDir, "p2");

const dev = p2Home("dev");
const compiled = p2Home("exe-home");
const piUsed = piCli ? piHome("pi-used") : undefined;
const timelineFile = join(work, "timeline.jsonl");

type Variant = { name: string; run(): Promise<Sample> };
const variants: Variant[] = [
	{
		name: "npm start, cold",
		run: async () => {
			await stopDeviceServer(dev.data);
			return measure([process.execPath, MAIN], dev.env, dev.home, HEADER_P2, timelineFile);
		},
	},
	{ name: "npm start, warm", run: () => measure([process.execPath, MAIN], dev.env, dev.home, HEADER_P2, timelineFile) },
	{
		name: "dist/p2, cold",
		run: async () => {
			await stopDeviceServer(compiled.data);
			return measure([exe], compiled.env, compiled.home, HEADER_P2, timelineFile);
		},
	},
	{ name: "dist/p2, warm", run: () => measure([exe], compiled.env, compiled.home, HEADER_P2, timelineFile) },
];
if (piCli && piUsed) {
	variants.push(
		{
			name: "pi, empty HOME",
			run: async () => {
				const fresh = piHome(`pi-empty-${Math.random().toString(36).slice(2)}`);
				return measure([process.execPath, piCli, "--offline"], fresh.env, fresh.home, HEADER_PI);
			},
		},
		{
			name: "pi, used HOME",
			run: () => measure([process.execPath, piCli, "--offline"], piUsed.env, piUsed.home, HEADER_PI),
		},
	);
}

const loadBefore = loadavg();
// One run of each first, not counted: caches (the bundle cache, pi's first-run files) are as a person has them.
for (const variant of variants) await variant.run();
const samples = new Map<string, Sample[]>(variants.map((v) => [v.name, []]));
for (let i = 0; i < RUNS; i++) {
	for (const variant of variants) samples.get(variant.name)!.push(await variant.run());
}
await stopDeviceServer(dev.data);
await stopDeviceServer(compiled.data);
const loadAfter = loadavg();

const medianOf = (name: string) => median(samples.get(name)?.map((s) => s.readyMs) ?? []);
const piEmpty = medianOf("pi, empty HOME");
const piUsedMs = medianOf("pi, used HOME");
const timelineMedian = (name: string) => {
	const lines = (samples.get(name) ?? []).flatMap((s) => (s.timeline ? [s.timeline] : []));
	const keys = [...new Set(lines.flatMap((t) => Object.keys(t)))];
	return Object.fromEntries(keys.map((k) => [k, round(median(lines.flatMap((t) => (k in t ? [t[k]!] : []))))]));
};
const rows = variants.map((v) => {
	const ready = medianOf(v.name);
	return {
		variant: v.name,
		readyMedianMs: round(ready),
		headerMedianMs: round(median(samples.get(v.name)!.map((s) => s.headerMs))),
		...(piCli
			? { vsPiEmptyHome: Number((ready / piEmpty).toFixed(2)), vsPiUsedHome: Number((ready / piUsedMs).toFixed(2)) }
			: {}),
		...(v.name.startsWith("pi") ? {} : { timelineMedianMs: timelineMedian(v.name) }),
	};
});
console.log(
	JSON.stringify(
		{
			runs: RUNS,
			ready: "header, editor and footer with the model on screen",
			loadAverage: {
				before: loadBefore.map((n) => Number(n.toFixed(2))),
				after: loadAfter.map((n) => Number(n.toFixed(2))),
			},
			rows,
			...(piCli ? {} : { pi: "set PI_CLI to measure pi 1.6.0 beside p2" }),
		},
		null,
		2,
	),
);
await fake.stop();
rmSync(work, { recursive: true, force: true });
process.exit(0);
