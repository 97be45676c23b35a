import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BACKGROUND_NICE, BackgroundThreads, type ThreadTable } from "../../src/host/background-threads.ts";

/** A process's threads as a test sets them; counts how often each name is read. */
function table(threads: Record<string, string>) {
	const live = new Map(Object.entries(threads));
	const reads = new Map<string, number>();
	const lowered: string[] = [];
	const t: ThreadTable & { live: Map<string, string>; reads: Map<string, number>; lowered: string[]; fail?: boolean } =
		{
			live,
			reads,
			lowered,
			ids: () => {
				if (t.fail) throw new Error("no /proc");
				return [...live.keys()];
			},
			name: (id) => {
				reads.set(id, (reads.get(id) ?? 0) + 1);
				return live.get(id);
			},
			lower: (id, nice) => {
				if (!live.has(id)) throw new Error("ESRCH");
				expect(nice).toBe(BACKGROUND_NICE);
				lowered.push(id);
			},
		};
	return t;
}

describe("the engine's background threads", () => {
	test("its compiler threads and the allocator's scavenger are lowered once; the JavaScript threads never", () => {
		const t = table({
			"1": "bun",
			"2": "JITWorker",
			"3": "Worker",
			"4": "mi-scavenger",
			"5": "HeapHelper",
			"6": "JITWorker",
		});
		const threads = new BackgroundThreads(t);
		expect(threads.lowerNew()).toBe(3);
		expect(t.lowered.sort()).toEqual(["2", "4", "6"]);
		expect(threads.lowerNew()).toBe(0);
		expect(threads.lowerNew()).toBe(0);
		expect(t.lowered).toHaveLength(3);
		// A lowered thread is not read again; another is read twice (it might not have named itself yet), then left.
		expect(t.reads.get("2")).toBe(1);
		expect(t.reads.get("1")).toBe(2);
	});

	test("a thread listed before it named itself is lowered once it has its name", () => {
		const t = table({ "1": "bun", "7": "bun" });
		const threads = new BackgroundThreads(t);
		expect(threads.lowerNew()).toBe(0);
		t.live.set("7", "JITWorker");
		expect(threads.lowerNew()).toBe(1);
		expect(t.lowered).toEqual(["7"]);
	});

	test("threads started later are lowered; an ended thread's id used again is looked at again", () => {
		const t = table({ "1": "bun", "2": "JITWorker" });
		const threads = new BackgroundThreads(t);
		threads.lowerNew();
		t.live.delete("2");
		t.live.set("8", "JITWorker");
		expect(threads.lowerNew()).toBe(1);
		t.live.set("2", "JITWorker");
		expect(threads.lowerNew()).toBe(1);
		expect(t.lowered).toEqual(["2", "8", "2"]);
	});

	test("a thread that ends while it is lowered, or threads that cannot be listed, change nothing", () => {
		const t = table({ "2": "JITWorker", "3": "JITWorker" });
		const lower = t.lower;
		t.lower = (id, nice) => {
			if (id === "2") throw new Error("ESRCH");
			lower(id, nice);
		};
		const threads = new BackgroundThreads(t);
		expect(threads.lowerNew()).toBe(1);
		t.fail = true;
		expect(threads.lowerNew()).toBe(0);
	});

	test.if(process.platform === "linux")(
		"in a real process: its JIT threads run at the lowest priority, its main thread as before",
		async () => {
			const script = `
			const { readdirSync, readFileSync } = require("node:fs");
			const { BackgroundThreads } = require(${JSON.stringify(`${import.meta.dir}/../../src/host/background-threads.ts`)});
			let s = 0;
			for (let k = 0; k < 40; k++) {
				const f = new Function("x", "let a = 0; for (let i = 0; i < x; i++) a += i * " + k + "; return a;");
				for (let j = 0; j < 3000; j++) s += f(50);
			}
			new BackgroundThreads().lowerNew();
			const out = [];
			for (const id of readdirSync("/proc/self/task")) {
				const name = readFileSync("/proc/self/task/" + id + "/comm", "utf8").trim();
				const stat = readFileSync("/proc/self/task/" + id + "/stat", "utf8");
				out.push([id === String(process.pid) ? "main" : name, Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16])]);
			}
			console.log(JSON.stringify(out));`;
			// A file, not `bun -e`: code given with -e is never handed to the compiler threads.
			const dir = mkdtempSync(join(tmpdir(), "p2-threads-"));
			let threads: [string, number][];
			try {
				writeFileSync(join(dir, "hot.ts"), script);
				const proc = Bun.spawn([process.execPath, join(dir, "hot.ts")], { stdout: "pipe", stderr: "inherit" });
				threads = JSON.parse(await new Response(proc.stdout).text()) as [string, number][];
				expect(await proc.exited).toBe(0);
			} finally {
				rmSync(dir, { recursive: true, force: true });
			}
			const jit = threads.filter(([name]) => name.startsWith("JITWorker"));
			expect(jit.length).toBeGreaterThan(0);
			for (const [, nice] of jit) expect(nice).toBe(BACKGROUND_NICE);
			expect(threads.find(([name]) => name === "main")?.[1]).toBe(0);
		},
	);
});
