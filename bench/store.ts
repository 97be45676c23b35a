// Session store benchmark: prints JSON. `bun bench/store.ts`
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type EntryInput, SessionStore } from "../src/server/store/session-store.ts";

const ENTRIES = 10_000;
const WINDOW = 100;
const author = { id: "owner", name: "Owner", role: "deviceOwner" };

function entry(i: number): EntryInput {
	// Roughly a short chat message or tool result: a few hundred bytes of JSON.
	return {
		kind: i % 3 === 0 ? "user" : "assistant",
		data: { text: `message ${i} `.repeat(20), usage: { input: i, output: i * 2 } },
		author: i % 3 === 0 ? author : null,
		requestId: i % 3 === 0 ? `req-${i}` : null,
	};
}

function stats(samples: number[]) {
	const sorted = [...samples].sort((a, b) => a - b);
	const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
	const round = (n: number) => Math.round(n * 1000) / 1000;
	return { runs: samples.length, medianMs: round(at(0.5)), p95Ms: round(at(0.95)), maxMs: round(at(1)) };
}

function time(fn: () => void): number {
	const start = performance.now();
	fn();
	return performance.now() - start;
}

const data = mkdtempSync(join(tmpdir(), "p2-bench-store-"));
try {
	const id = crypto.randomUUID();
	const seed = SessionStore.open(data, id);
	const fillMs = time(() => {
		for (let start = 0; start < ENTRIES; start += 1000) {
			seed.appendMany(
				"main",
				Array.from({ length: 1000 }, (_, k) => entry(start + k)),
			);
		}
	});
	seed.close();

	// Open a 10,000-entry session from its file and read the window a client gets on open.
	const openAndWindow: number[] = [];
	for (let i = 0; i < 30; i++) {
		openAndWindow.push(
			time(() => {
				const store = SessionStore.open(data, id);
				if (store.window("main", WINDOW).length !== WINDOW) throw new Error("short window");
				store.close();
			}),
		);
	}

	const store = SessionStore.open(data, id);
	const windowOnly: number[] = [];
	for (let i = 0; i < 100; i++) windowOnly.push(time(() => store.window("main", WINDOW)));
	const pageAllMs = time(() => {
		let beforeSeq: number | undefined;
		for (;;) {
			const page = store.page("main", beforeSeq === undefined ? { limit: WINDOW } : { beforeSeq, limit: WINDOW });
			if (!page.more) break;
			beforeSeq = page.entries[0]!.seq;
		}
	});

	// Each append is its own commit, as streamed agent output would be.
	const singles = 5000;
	const singleMs = time(() => {
		for (let i = 0; i < singles; i++) store.append("bench", entry(ENTRIES + i));
	});
	const batches = 100;
	const batchSize = 100;
	const batchMs = time(() => {
		for (let b = 0; b < batches; b++) {
			store.appendMany(
				"bench",
				Array.from({ length: batchSize }, (_, k) => ({ ...entry(0), requestId: `batch-${b}-${k}` })),
			);
		}
	});
	store.close();

	// What synchronous=FULL would cost per commit, on the same disk, for the durability choice.
	const syncCost = (mode: "NORMAL" | "FULL") => {
		const db = new Database(join(data, `sync-${mode}.sqlite`));
		db.exec(`PRAGMA journal_mode=WAL; PRAGMA synchronous=${mode}; CREATE TABLE t (v TEXT)`);
		const insert = db.query("INSERT INTO t (v) VALUES (?)");
		const n = 1000;
		const ms = time(() => {
			for (let i = 0; i < n; i++) insert.run("x".repeat(300));
		});
		db.close();
		return Math.round((n / ms) * 1000);
	};

	console.log(
		JSON.stringify(
			{
				bench: "store",
				entries: ENTRIES,
				window: WINDOW,
				fillMs: Math.round(fillMs),
				openAndWindow: stats(openAndWindow),
				windowOnOpenStore: stats(windowOnly),
				pageWholeHistoryMs: Math.round(pageAllMs),
				appendPerSec: Math.round((singles / singleMs) * 1000),
				appendManyEntriesPerSec: Math.round(((batches * batchSize) / batchMs) * 1000),
				rawCommitsPerSec: { synchronousNormal: syncCost("NORMAL"), synchronousFull: syncCost("FULL") },
			},
			null,
			2,
		),
	);
} finally {
	rmSync(data, { recursive: true, force: true });
}
