import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { INTERRUPTED_KIND, SessionStore, type StoredEntry } from "../../src/server/store/session-store.ts";

const WRITER = join(import.meta.dir, "..", "support", "store-writer.ts");
const data = mkdtempSync(join(tmpdir(), "p2-crash-"));
afterAll(() => rmSync(data, { recursive: true, force: true }));

/** Kill when the predicate holds for the lines printed so far, or after this many ms. */
type KillPlan = ((lines: string[]) => boolean) | number;

interface Round {
	readonly runId: string;
	readonly lines: string[];
}

/**
 * Runs the writer until `killWhen` says so (or, with a delay, at a random moment that may fall inside open and
 * recovery), kills it with SIGKILL and returns every line it printed before it died.
 */
async function crashWriter(sessionId: string, runId: string, killWhen: KillPlan, extraRuns = 0): Promise<Round> {
	const child = Bun.spawn([process.execPath, WRITER, data, sessionId, runId, String(extraRuns)], {
		stdout: "pipe",
		stderr: "pipe",
	});
	const lines: string[] = [];
	const decoder = new TextDecoder();
	let partial = "";
	let killed = false;
	const kill = () => {
		if (killed) return;
		killed = true;
		child.kill("SIGKILL");
	};
	const timer = typeof killWhen === "number" ? setTimeout(kill, killWhen) : undefined;
	const due = () => typeof killWhen === "function" && killWhen(lines);
	if (due()) kill();
	for await (const chunk of child.stdout) {
		partial += decoder.decode(chunk, { stream: true });
		const complete = partial.split("\n");
		partial = complete.pop()!;
		lines.push(...complete);
		if (due()) kill();
	}
	clearTimeout(timer);
	kill();
	await child.exited;
	if (child.signalCode !== "SIGKILL")
		throw new Error(`the writer died on its own: ${await new Response(child.stderr).text()}`);
	return { runId, lines };
}

const random = (below: number) => Math.floor(Math.random() * below);

/** Every run with its status and how many interrupted entries name it, read straight from the file. */
function interruptionsPerRun(path: string) {
	const db = new Database(path, { readonly: true });
	try {
		return db
			.query<{ id: string; conversation: string; status: string; entries: number; entryConversation: string }, []>(
				`SELECT r.id, r.conversation, r.status, COUNT(e.seq) AS entries, MIN(e.conversation) AS entryConversation
				FROM runs r LEFT JOIN entries e ON e.run_id = r.id AND e.kind = 'interrupted'
				GROUP BY r.id ORDER BY r.id`,
			)
			.all();
	} finally {
		db.close();
	}
}

test("committed entries survive SIGKILL, and each crashed run gets exactly one interrupted entry", async () => {
	const sessionId = crypto.randomUUID();
	const rounds: Round[] = [];
	// Round 0 writes a while; later rounds die at a random point: before or during recovery (right after
	// spawning), just after it, or after writing some more. Every open after the first recovers round k-1's run.
	const first = 50 + random(500);
	// Round 0 also leaves 2,000 side runs running, so the next opens have a recovery long enough to die inside.
	rounds.push(await crashWriter(sessionId, "run-0", (l) => l.filter((x) => x.startsWith("seq")).length >= first, 2000));
	const plans: (() => KillPlan)[] = [
		() => () => true,
		() => random(150),
		() => random(150),
		() => (l) => l.some((x) => x.startsWith("open")),
		() => (l) => l.some((x) => x.startsWith("run")),
		() => {
			const n = 1 + random(300);
			return (l) => l.filter((x) => x.startsWith("seq")).length >= n;
		},
	];
	for (let k = 1; k <= 10; k++) {
		// The first rounds die after a random delay, often inside the open that recovers those 2,000 runs.
		const plan = k <= 3 ? 15 + random(45) : plans[random(plans.length)]!();
		rounds.push(await crashWriter(sessionId, `run-${k}`, plan));
	}
	if (process.env.P2_CRASH_DEBUG) for (const r of rounds) console.log(r.runId, r.lines.length, r.lines.slice(0, 2));

	const store = SessionStore.open(data, sessionId);
	try {
		const all = store.page("main", { limit: 1_000_000 });
		expect(all.more).toBe(false);
		const bySeq = new Map<number, StoredEntry>(all.entries.map((e) => [e.seq, e]));

		// Every seq a writer reported is there, for the run that wrote it.
		for (const round of rounds) {
			for (const line of round.lines.filter((x) => x.startsWith("seq "))) {
				const entry = bySeq.get(Number(line.slice(4)));
				expect(entry?.runId).toBe(round.runId);
			}
		}

		// Each run's messages are exactly 1..n: nothing lost in the middle, nothing written twice.
		const messages = all.entries.filter((e) => e.kind === "message");
		for (const round of rounds) {
			const numbers = messages.filter((e) => e.runId === round.runId).map((e) => (e.data as { i: number }).i);
			expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, k) => k + 1));
		}
		expect(new Set(messages.map((e) => e.requestId)).size).toBe(messages.length);

		// Every run that started (the 2,000 side runs too) is now interrupted, with exactly one interrupted entry
		// in its own conversation, none duplicated by the recoveries that were themselves killed.
		const reported = rounds.filter((r) => r.lines.some((x) => x.startsWith("run "))).map((r) => r.runId);
		for (const runId of reported) expect(store.run(runId)).toBeDefined();
		const interruptions = interruptionsPerRun(store.path);
		expect(interruptions.length).toBeGreaterThanOrEqual(reported.length + 2000);
		for (const run of interruptions) {
			expect(run).toEqual({ ...run, status: "interrupted", entries: 1, entryConversation: run.conversation });
			expect(store.run(run.id)?.status).toBe("interrupted");
		}
		const main = all.entries.filter((e) => e.kind === INTERRUPTED_KIND);
		for (const entry of main) {
			expect(entry.data).toEqual({ runId: entry.runId, startedAt: store.run(entry.runId!)!.startedAt });
		}
		// The last round's run, if it started, was recovered by this very open.
		const last = rounds.at(-1)!;
		if (store.run(last.runId)) expect(store.runsInterrupted().map((r) => r.runId)).toContain(last.runId);
	} finally {
		store.close();
	}

	// One more open changes nothing.
	const before = interruptionsPerRun(SessionStore.open(data, sessionId).path);
	const again = SessionStore.open(data, sessionId);
	expect(again.runsInterrupted()).toEqual([]);
	expect(interruptionsPerRun(again.path)).toEqual(before);
	again.close();
});
