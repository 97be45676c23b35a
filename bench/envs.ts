// Environments benchmark: what a tool call costs over SSH (a loopback sshd, the master connection warm) beside
// the same call on this device, the first connection, and the throughput of a 10 MB `cat` through bash.
// Prints JSON. `bun bench/envs.ts` (needs sshd; skipped with a reason without it).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentTool } from "@earendil-works/pi-agent-core";
import { createTools } from "../src/server/agent/tools/index.ts";
import { Environments } from "../src/server/env/environments.ts";
import { findSshd, TestSshd } from "../test/support/sshd.ts";

const RUNS = 30;
const CAT_BYTES = 10 * 1024 * 1024;

function stats(samples: number[]) {
	const sorted = [...samples].sort((a, b) => a - b);
	const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
	const round = (n: number) => Math.round(n * 10) / 10;
	return { runs: samples.length, medianMs: round(at(0.5)), p90Ms: round(at(0.9)), maxMs: round(at(1)) };
}

async function time(runs: number, fn: () => Promise<unknown>): Promise<number[]> {
	const samples: number[] = [];
	for (let i = 0; i < runs; i++) {
		const start = performance.now();
		await fn();
		samples.push(performance.now() - start);
	}
	return samples;
}

const sshdPath = findSshd();
if (!sshdPath) {
	console.log(JSON.stringify({ bench: "envs", skipped: "no sshd (install openssh-server)" }));
	process.exit(0);
}
const sshd = await TestSshd.start(sshdPath);
const data = mkdtempSync(join(tmpdir(), "p2-bench-envs-"));
const envs = new Environments({ dataDir: data });
try {
	writeFileSync(join(data, "envs.json"), JSON.stringify({ environments: [sshd.entry("box")] }));
	envs.reload();
	const first = await envs.test("box");
	if (!first.ok && first.hostKey) {
		envs.acceptKey(
			"box",
			first.hostKey.offered.map((k) => k.fingerprint),
		);
	}
	// The first connection (handshake and master), then the same again with the master warm.
	const box = envs.get("box") as unknown as { probe(): Promise<string>; close(): Promise<void> };
	await box.close();
	const coldStart = performance.now();
	await box.probe();
	const firstConnectionMs = Math.round(performance.now() - coldStart);

	const work = join(sshd.home, "work");
	mkdirSync(work);
	writeFileSync(join(work, "small.txt"), "hello\n".repeat(100));
	const big = join(work, "big.bin");
	// Printable bytes, in lines (the bash tool decodes text).
	const line = `${"x".repeat(1023)}\n`;
	writeFileSync(big, line.repeat(CAT_BYTES / 1024));
	const spill = join(data, "spill");
	const toolsOf = (env: string) => {
		const tools = createTools({ env: envs.get(env), cwd: work, spillDir: spill });
		return (name: string) => tools.find((t) => t.name === name) as AgentTool;
	};
	const local = toolsOf("local");
	const remote = toolsOf("box");
	let id = 0;
	const call = (tool: AgentTool, args: Record<string, unknown>) => tool.execute(`b${id++}`, args as never);
	const result = {
		bench: "envs",
		transport: "OpenSSH client, ControlMaster/ControlPersist (one ssh process per operation over the master)",
		firstConnectionMs,
		readSmallFile: {
			local: stats(await time(RUNS, () => call(local("read"), { path: "small.txt" }))),
			ssh: stats(await time(RUNS, () => call(remote("read"), { path: "small.txt" }))),
		},
		bashTrue: {
			local: stats(await time(RUNS, () => call(local("bash"), { command: "true" }))),
			ssh: stats(await time(RUNS, () => call(remote("bash"), { command: "true" }))),
		},
		cat10MB: {} as Record<string, unknown>,
	};
	for (const [name, tools] of [
		["local", local],
		["ssh", remote],
	] as const) {
		const samples = await time(5, () => call(tools("bash"), { command: "cat big.bin" }));
		const median = stats(samples).medianMs;
		result.cat10MB[name] = {
			...stats(samples),
			mbPerSecond: Math.round((CAT_BYTES / 1024 / 1024 / (median / 1000)) * 10) / 10,
		};
	}
	const added = (k: "readSmallFile" | "bashTrue") =>
		Math.round((result[k].ssh.medianMs - result[k].local.medianMs) * 10) / 10;
	console.log(
		JSON.stringify({ ...result, addedLatencyMs: { read: added("readSmallFile"), bash: added("bashTrue") } }, null, 2),
	);
} finally {
	await envs.close();
	await sshd.stop();
	rmSync(data, { recursive: true, force: true });
}
