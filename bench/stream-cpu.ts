/**
 * CPU and memory of a streamed answer, end to end, beside pi 1.6.0 (issue 19): the same fake model streams a
 * 400-line answer (one paragraph, the shape that re-lexes everything) and an ordinary Markdown answer to p2
 * (launcher and this device's server, both counted) and to pi in a pseudo-terminal. Prints CPU seconds per
 * answer (p2's also by process: launcher, server; the Markdown answer's by thread of the first process), the
 * ratio to pi, and resident memory after start and after 20 answers. The Markdown answer runs five times and
 * its median counts (one answer's CPU moves by a fifth between runs on a shared machine). Linux (/proc).
 * Run: PI_CLI=/path/to/pi/dist/bundle/cli.js bun bench/stream-cpu.ts
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readServerInfo, SERVER_INFO_FILE } from "../src/protocol/server-info.ts";
import { stopDeviceServer } from "../test/support/device-server.ts";
import { startFakeOpenAI, writeFakeModelsJson } from "../test/support/fake-openai.ts";
import { type PtyRun, runInPty } from "../test/support/pty.ts";

const ROOT = join(import.meta.dir, "..");
const MAIN = join(ROOT, "src", "main.ts");
const piCli = process.env.PI_CLI;
const TICKS = 100; // USER_HZ on Linux

const fake = await startFakeOpenAI();
const work = mkdtempSync(join(tmpdir(), "p2-bench-stream-cpu-"));

/** utime + stime of a process, in seconds. */
function cpuSeconds(pid: number): number {
	const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
	const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
	return (Number(fields[11]) + Number(fields[12])) / TICKS;
}

/** CPU seconds of each thread of a process, summed by the thread's name (the main thread, the guest worker, JIT, GC). */
function cpuByThread(pid: number): Map<string, number> {
	const out = new Map<string, number>();
	for (const tid of readdirSync(`/proc/${pid}/task`)) {
		try {
			const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, "utf8").trim().replace(/\d+$/, "");
			const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
			const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
			const key = Number(tid) === pid ? "main" : name;
			out.set(key, (out.get(key) ?? 0) + (Number(fields[11]) + Number(fields[12])) / TICKS);
		} catch {
			// The thread ended.
		}
	}
	return out;
}

function rssMiB(pid: number): number {
	const status = readFileSync(`/proc/${pid}/status`, "utf8");
	return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

const paragraph = Array.from(
	{ length: 400 },
	(_, i) => `This is line ${i} of a long answer with some words in it`,
).join("\n");
const markdown = Array.from(
	{ length: 40 },
	(_, i) =>
		`## Part ${i}\n\nThe function reads the file, splits it into lines and returns the ones that match.\n\n- item one\n- item two\n\n\`\`\`ts\nconst x${i} = read(path);\n\`\`\``,
).join("\n\n");
const chunksOf = (text: string) => Math.ceil(text.length / 6);
const MARKDOWN_RUNS = 5;

interface Contender {
	readonly name: string;
	readonly pids: () => number[];
	readonly run: PtyRun;
}

/** The first process's CPU by thread during the last answer (the launcher's: its main thread and the guest's). */
const lastByThread = new Map<string, Record<string, number>>();

/** CPU seconds of each process (p2: the launcher, then the server) spent on one answer. */
async function answer(who: Contender, text: string, marker: string): Promise<number[]> {
	const before = who.pids().map(cpuSeconds);
	const threadsBefore = cpuByThread(who.pids()[0]!);
	fake.enqueue({ text, chunks: chunksOf(text), chunkDelayMs: 1 });
	who.run.type("go\r");
	await who.run.waitFor((s) => s.includes(marker) && !/Working/.test(s), "the end of the answer", 300_000);
	const threads: Record<string, number> = {};
	for (const [name, cpu] of cpuByThread(who.pids()[0]!)) {
		const spent = cpu - (threadsBefore.get(name) ?? 0);
		if (spent >= 0.01) threads[name] = Number(spent.toFixed(2));
	}
	lastByThread.set(who.name, threads);
	return who.pids().map((pid, i) => cpuSeconds(pid) - (before[i] ?? 0));
}
const total = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const byProcess = (xs: number[]) => xs.map((x) => Number(x.toFixed(2)));

async function contender(
	name: string,
	cmd: string[],
	env: Record<string, string>,
	cwd: string,
	pids: (run: PtyRun) => number[],
) {
	const run = runInPty(cmd, { env, cwd, cols: 120, rows: 40 });
	// Ready for a message: the footer names the model, and pi no longer says its start is in progress (it keeps
	// what is typed before then in the editor).
	await run.waitFor(
		(s) => s.includes("fake-model") && !s.includes("Startup is still in progress"),
		"the screen",
		60_000,
	);
	return { name, run, pids: () => pids(run) } satisfies Contender;
}

const results: Record<string, unknown> = {};
async function measure(who: Contender) {
	const rssStart = who.pids().reduce((sum, pid) => sum + rssMiB(pid), 0);
	const paragraphCpu = await answer(who, paragraph, "line 399 of a long answer");
	// The Markdown answer five times (each ends with its own marker): the median run's numbers.
	const markdownRuns: { cpu: number[]; threads: Record<string, number> | undefined }[] = [];
	for (let i = 0; i < MARKDOWN_RUNS; i++) {
		const cpu = await answer(who, `${markdown}\n\nEnd ${i}.`, `End ${i}.`);
		markdownRuns.push({ cpu, threads: lastByThread.get(who.name) });
	}
	markdownRuns.sort((a, b) => total(a.cpu) - total(b.cpu));
	// A one-word answer: what every answer costs whatever its length (the prompt, the run, storing, drawing).
	const shortRuns: number[][] = [];
	for (let i = 0; i < MARKDOWN_RUNS; i++) shortRuns.push(await answer(who, `Short${i}.`, `Short${i}.`));
	shortRuns.sort((a, b) => total(a) - total(b));
	const shortCpu = shortRuns[Math.floor(MARKDOWN_RUNS / 2)]!;
	const median = markdownRuns[Math.floor(MARKDOWN_RUNS / 2)]!;
	const markdownCpu = median.cpu;
	const markdownThreads = median.threads;
	for (let i = 0; i < 20 - 1 - 2 * MARKDOWN_RUNS; i++) {
		await answer(who, `Answer ${i}: ${"words ".repeat(200)}done${i}`, `done${i}`);
	}
	const rssAfter = who.pids().reduce((sum, pid) => sum + rssMiB(pid), 0);
	results[who.name] = {
		cpuSecondsParagraph400: Number(total(paragraphCpu).toFixed(2)),
		cpuSecondsMarkdown: Number(total(markdownCpu).toFixed(2)),
		cpuSecondsMarkdownRuns: markdownRuns.map((r) => Number(total(r.cpu).toFixed(2))),
		cpuSecondsShortAnswer: Number(total(shortCpu).toFixed(3)),
		...(shortCpu.length > 1 ? { byProcessShortAnswer: byProcess(shortCpu) } : {}),
		...(paragraphCpu.length > 1
			? { byProcessParagraph400: byProcess(paragraphCpu), byProcessMarkdown: byProcess(markdownCpu) }
			: {}),
		markdownByThread: markdownThreads,
		rssMiBAfterStart: Math.round(rssStart),
		rssMiBAfter20Answers: Math.round(rssAfter),
	};
	who.run.type("\x04");
	await Promise.race([who.run.exited, Bun.sleep(5000).then(() => who.run.kill())]);
}

// p2: the launcher's process and this device's server's.
const home = join(work, "p2");
const data = join(home, "data");
mkdirSync(data, { recursive: true, mode: 0o700 });
writeFakeModelsJson(data, fake.baseUrl);
const p2Env = { PATH: process.env.PATH ?? "", HOME: home, P2_DATA_DIR: data, TERM: "xterm-256color" };
const serverPid = () => readServerInfo(JSON.parse(readFileSync(join(data, SERVER_INFO_FILE), "utf8")))?.pid ?? 0;
await measure(await contender("p2", [process.execPath, MAIN], p2Env, home, (run) => [run.pid, serverPid()]));
await stopDeviceServer(data);

if (piCli) {
	const piHome = join(work, "pi");
	const agent = join(piHome, ".pi", "agent");
	mkdirSync(agent, { recursive: true });
	writeFakeModelsJson(agent, fake.baseUrl);
	writeFileSync(join(agent, "settings.json"), JSON.stringify({ defaultProvider: "fake", defaultModel: "fake-model" }));
	const piEnv = { PATH: process.env.PATH ?? "", HOME: piHome, TERM: "xterm-256color" };
	await measure(await contender("pi_1_6_0", [process.execPath, piCli, "--offline"], piEnv, piHome, (run) => [run.pid]));
	const p2 = results.p2 as Record<string, number>;
	const pi = results.pi_1_6_0 as Record<string, number>;
	results.ratios = {
		cpuParagraph400: Number((p2.cpuSecondsParagraph400! / pi.cpuSecondsParagraph400!).toFixed(2)),
		cpuMarkdown: Number((p2.cpuSecondsMarkdown! / pi.cpuSecondsMarkdown!).toFixed(2)),
		cpuShortAnswer: Number((p2.cpuSecondsShortAnswer! / pi.cpuSecondsShortAnswer!).toFixed(2)),
		rssAfterStart: Number((p2.rssMiBAfterStart! / pi.rssMiBAfterStart!).toFixed(2)),
		rssAfter20Answers: Number((p2.rssMiBAfter20Answers! / pi.rssMiBAfter20Answers!).toFixed(2)),
	};
} else results.pi = "set PI_CLI to measure pi 1.6.0 beside p2";

console.log(JSON.stringify(results, null, 2));
await fake.stop();
rmSync(work, { recursive: true, force: true });
process.exit(0);
