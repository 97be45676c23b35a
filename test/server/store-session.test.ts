import { Database } from "bun:sqlite";
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuplicateRequestError, StoreClosedError, StoreError } from "../../src/server/store/errors.ts";
import {
	CORRUPT_KIND,
	type EntryInput,
	INTERRUPTED_KIND,
	type QueuedRow,
	SessionStore,
	type StoredEntry,
} from "../../src/server/store/session-store.ts";
import { SessionStores } from "../../src/server/store/session-stores.ts";
import { waitUntil } from "../support/wait.ts";

let data: string;
let id: string;
let store: SessionStore;
beforeEach(() => {
	data = mkdtempSync(join(tmpdir(), "p2-session-"));
	id = crypto.randomUUID();
	store = SessionStore.open(data, id);
});
afterEach(() => {
	store.close();
	rmSync(data, { recursive: true, force: true });
});

const author = { id: "u1", name: "Ada", role: "owner" };
const message = (i: number): EntryInput => ({ kind: "message", data: { i } });
const seqs = (entries: readonly StoredEntry[]) => entries.map((e) => e.seq);

describe("entries", () => {
	test("append returns the stored entry and reads give the same", () => {
		const entry = store.append("main", { kind: "user", data: { text: "hi" }, author, requestId: "r1", runId: "run" });
		expect(entry).toEqual({
			seq: 1,
			conversation: "main",
			kind: "user",
			data: { text: "hi" },
			author,
			requestId: "r1",
			runId: "run",
			at: entry.at,
		});
		const bare = store.append("main", { kind: "note", data: null, at: 42 });
		expect(bare).toMatchObject({ seq: 2, data: null, author: null, requestId: null, runId: null, at: 42 });
		expect(store.window("main", 10)).toEqual([entry, bare]);
		expect(store.count("main")).toBe(2);
	});

	test("conversations are kept apart and listed in the order they began", () => {
		store.append("b", message(1));
		store.append("a", message(2));
		store.append("b", message(3));
		expect(store.conversations()).toEqual(["b", "a"]);
		expect(store.count("b")).toBe(2);
		expect(store.window("a", 10).map((e) => e.data)).toEqual([{ i: 2 }]);
		expect(store.window("none", 10)).toEqual([]);
	});

	test("appendMany commits all or nothing", () => {
		const entries = store.appendMany("main", [message(1), message(2), { ...message(3), requestId: "x" }]);
		expect(seqs(entries)).toEqual([1, 2, 3]);
		expect(() => store.appendMany("main", [message(4), { ...message(5), requestId: "x" }])).toThrow(
			DuplicateRequestError,
		);
		expect(() => store.appendMany("main", [message(6), { kind: "bad", data: () => 1 }])).toThrow(TypeError);
		expect(() =>
			store.appendMany("main", [
				{ ...message(7), requestId: "y" },
				{ ...message(8), requestId: "y" },
			]),
		).toThrow(StoreError);
		expect(store.count("main")).toBe(3);
		expect(store.byRequestId("main", "y")).toBeUndefined();
	});

	test("a retried requestId is detected and not duplicated, per conversation", () => {
		const first = store.append("main", { kind: "user", data: { text: "once" }, requestId: "req-1" });
		let caught: unknown;
		try {
			store.append("main", { kind: "user", data: { text: "again" }, requestId: "req-1" });
		} catch (error) {
			caught = error;
		}
		expect(caught).toBeInstanceOf(DuplicateRequestError);
		expect((caught as DuplicateRequestError<StoredEntry>).existing).toEqual(first);
		expect(store.count("main")).toBe(1);
		expect(store.byRequestId("main", "req-1")).toEqual(first);
		expect(store.byRequestId("main", "req-2")).toBeUndefined();
		// The same key in another conversation is another request.
		expect(store.append("side", { kind: "user", data: {}, requestId: "req-1" }).seq).toBe(2);
		// And the rule holds after a reopen.
		store.close();
		store = SessionStore.open(data, id);
		expect(() => store.append("main", { kind: "user", data: {}, requestId: "req-1" })).toThrow(DuplicateRequestError);
		expect(store.count("main")).toBe(1);
	});

	test("data that JSON cannot hold is refused", () => {
		expect(() => store.append("main", { kind: "x", data: undefined })).toThrow(TypeError);
		const loop: Record<string, unknown> = {};
		loop.self = loop;
		expect(() => store.append("main", { kind: "x", data: loop })).toThrow(TypeError);
		expect(() => store.append("main", { kind: "", data: 1 })).toThrow(StoreError);
		expect(store.count("main")).toBe(0);
	});

	test("the returned entry is a copy, not the caller's object", () => {
		const data = { list: [1] };
		const entry = store.append("main", { kind: "x", data });
		data.list.push(2);
		expect(entry.data).toEqual({ list: [1] });
	});
});

describe("window and page over 10,000 entries", () => {
	const N = 10_000;
	beforeEach(() => {
		const batch: EntryInput[] = [];
		for (let i = 1; i <= N; i++) batch.push(message(i));
		store.appendMany("main", batch);
		store.append("other", message(0));
	});

	test("window returns the last entries ascending", () => {
		expect(store.count("main")).toBe(N);
		const last = store.window("main", 100);
		expect(last).toHaveLength(100);
		expect(seqs(last)).toEqual(Array.from({ length: 100 }, (_, k) => N - 99 + k));
		expect(store.window("main", N + 50)).toHaveLength(N);
		expect(store.window("main", 0)).toEqual([]);
		expect(store.window("main", 1).map((e) => e.seq)).toEqual([N]);
	});

	test("paging back from the end visits every entry once, and more is false only on the first page", () => {
		const seen: number[] = [];
		let beforeSeq: number | undefined;
		let pages = 0;
		for (;;) {
			const page = store.page("main", beforeSeq === undefined ? { limit: 300 } : { beforeSeq, limit: 300 });
			pages++;
			expect(page.entries.length).toBe(page.more ? 300 : N % 300);
			expect(seqs(page.entries)).toEqual([...seqs(page.entries)].sort((a, b) => a - b));
			seen.unshift(...seqs(page.entries));
			if (!page.more) break;
			beforeSeq = page.entries[0]!.seq;
		}
		expect(pages).toBe(Math.ceil(N / 300));
		expect(seen).toEqual(Array.from({ length: N }, (_, k) => k + 1));
	});

	test("page boundaries: exact fit, one left, nothing before", () => {
		expect(store.page("main", { beforeSeq: 101, limit: 100 })).toMatchObject({ more: false });
		expect(store.page("main", { beforeSeq: 101, limit: 100 }).entries).toHaveLength(100);
		const oneLeft = store.page("main", { beforeSeq: 102, limit: 100 });
		expect(oneLeft.more).toBe(true);
		expect(seqs(oneLeft.entries)).toEqual(Array.from({ length: 100 }, (_, k) => k + 2));
		expect(store.page("main", { beforeSeq: 1, limit: 100 })).toEqual({ entries: [], more: false });
		expect(store.page("main", { limit: 0 })).toEqual({ entries: [], more: true });
		expect(store.page("main", { beforeSeq: N + 1, limit: N })).toMatchObject({ more: false });
		expect(store.page("other", { limit: 10 }).entries.map((e) => e.data)).toEqual([{ i: 0 }]);
	});

	test("since catches up forwards", () => {
		const tail = store.since("main", N - 5, 3);
		expect(seqs(tail.entries)).toEqual([N - 4, N - 3, N - 2]);
		expect(tail.more).toBe(true);
		expect(store.since("main", N - 3, 3)).toMatchObject({ more: false });
		expect(store.since("main", N, 3)).toEqual({ entries: [], more: false });
	});
});

describe("runs", () => {
	test("begin, end, and only a running run can end", () => {
		const run = store.beginRun("main", "run-1", 100);
		expect(run).toEqual({ id: "run-1", conversation: "main", startedAt: 100, endedAt: null, status: "running" });
		expect(store.activeRun("main")).toEqual(run);
		expect(() => store.beginRun("main", "run-1")).toThrow(StoreError);
		expect(store.endRun("run-1", "done", 200)).toEqual({ ...run, endedAt: 200, status: "done" });
		expect(store.endRun("run-1", "error", 300)).toBeUndefined();
		expect(store.endRun("nope", "aborted")).toBeUndefined();
		expect(store.run("run-1")?.status).toBe("done");
		expect(store.activeRun("main")).toBeUndefined();
	});

	test("reopening interrupts running runs with exactly one entry each", () => {
		store.beginRun("main", "r-a", 10);
		store.beginRun("side", "r-b", 20);
		store.beginRun("main", "r-c", 30);
		store.endRun("r-c", "aborted");
		expect(store.runsInterrupted()).toEqual([]);
		store.close();

		store = SessionStore.open(data, id);
		const recovered = store.runsInterrupted();
		expect(recovered.map((r) => [r.runId, r.conversation, r.startedAt])).toEqual([
			["r-a", "main", 10],
			["r-b", "side", 20],
		]);
		expect(recovered[0]!.entry).toMatchObject({
			kind: INTERRUPTED_KIND,
			conversation: "main",
			data: { runId: "r-a", startedAt: 10 },
			runId: "r-a",
		});
		expect(store.run("r-a")?.status).toBe("interrupted");
		expect(store.run("r-c")?.status).toBe("aborted");
		expect(store.endRun("r-a", "done")).toBeUndefined();
		store.close();

		store = SessionStore.open(data, id);
		expect(store.runsInterrupted()).toEqual([]);
		const interrupted = [...store.window("main", 10), ...store.window("side", 10)].filter(
			(e) => e.kind === INTERRUPTED_KIND,
		);
		expect(interrupted.map((e) => e.runId)).toEqual(["r-a", "r-b"]);
	});
});

describe("queue", () => {
	const input = (id: string, requestId?: string) => ({
		id,
		mode: "followUp" as const,
		text: `t-${id}`,
		author,
		requestId,
	});

	test("queued inputs keep submission order and survive a reopen", () => {
		store.enqueue("main", input("q2"));
		store.enqueue("main", { ...input("q1"), mode: "steer" });
		store.enqueue("side", input("q3"));
		store.close();
		store = SessionStore.open(data, id);
		const queued = store.queued("main");
		expect(queued.map((q) => [q.id, q.mode, q.text, q.state])).toEqual([
			["q2", "followUp", "t-q2", "queued"],
			["q1", "steer", "t-q1", "queued"],
		]);
		expect(queued[0]!.author).toEqual(author);
		expect(store.queued("side").map((q) => q.id)).toEqual(["q3"]);
	});

	test("delivered and withdrawn inputs leave the queue; withdraw takes only what is still queued", () => {
		for (const q of ["a", "b", "c", "d"]) store.enqueue("main", input(q));
		expect(store.markDelivered("b")).toBe(true);
		expect(store.markDelivered("b")).toBe(false);
		const withdrawn = store.withdraw(["d", "b", "a", "zz", "a"]);
		expect(withdrawn.map((q) => [q.id, q.state])).toEqual([
			["a", "withdrawn"],
			["d", "withdrawn"],
		]);
		expect(store.withdraw(["a"])).toEqual([]);
		expect(store.markDelivered("a")).toBe(false);
		expect(store.queued("main").map((q) => q.id)).toEqual(["c"]);
	});

	test("a reused id or requestId is a duplicate", () => {
		const first = store.enqueue("main", input("a", "req"));
		expect(() => store.enqueue("main", input("a"))).toThrow(DuplicateRequestError);
		let caught: unknown;
		try {
			store.enqueue("main", input("b", "req"));
		} catch (error) {
			caught = error;
		}
		expect((caught as DuplicateRequestError<QueuedRow>).existing).toEqual(first);
		expect(store.enqueue("side", input("c", "req")).id).toBe("c");
		expect(store.queued("main")).toHaveLength(1);
	});
});

describe("damage and misuse", () => {
	test("a damaged entry reads as a corrupt entry in its place, not as a failure of the whole window", () => {
		store.append("main", message(1));
		store.append("main", message(2));
		store.append("main", message(3));
		store.close();
		const raw = new Database(join(data, "sessions", `${id}.sqlite`));
		raw.run("UPDATE entries SET data = '{not json' WHERE seq = 2");
		raw.close();
		const errors: string[] = [];
		store = SessionStore.open(data, id, { onCorrupt: (e) => errors.push(e.message) });
		const window = store.window("main", 10);
		expect(window.map((e) => e.kind)).toEqual(["message", CORRUPT_KIND, "message"]);
		expect(window[1]!.data).toMatchObject({ kind: "message" });
		expect(errors[0]).toContain("entry 2");
	});

	test("session ids must be UUIDs, so no id can name another path", () => {
		for (const bad of ["../catalog", "x", `${crypto.randomUUID()}/..`, ""]) {
			expect(() => SessionStore.open(data, bad)).toThrow(StoreError);
		}
	});

	test("a closed store refuses calls", () => {
		store.close();
		expect(() => store.append("main", message(1))).toThrow(StoreClosedError);
		expect(store.closed).toBe(true);
	});
});

describe("SessionStores", () => {
	test("opens lazily, reuses, closes idle stores but never held ones", () => {
		let now = 0;
		const stores = new SessionStores(data, { idleMs: 1000, now: () => now });
		const a = crypto.randomUUID();
		const b = crypto.randomUUID();
		expect(stores.isOpen(a)).toBe(false);
		const storeA = stores.get(a);
		expect(stores.get(a)).toBe(storeA);
		storeA.append("main", message(1));
		const held = stores.hold(b);
		expect(stores.openCount).toBe(2);
		now = 5000;
		expect(stores.sweep()).toBe(1);
		expect(storeA.closed).toBe(true);
		expect(stores.isOpen(b)).toBe(true);
		expect(() => stores.closeStore(b)).toThrow();
		held.release();
		held.release();
		now = 10_000;
		expect(stores.sweep()).toBe(1);
		expect(stores.openCount).toBe(0);
		expect(stores.get(a).count("main")).toBe(1);
		stores.closeAll();
		expect(() => stores.get(a)).toThrow();
	});

	test("keeps a spare store: a new session takes it, a session with a store never does, and another is made", async () => {
		const spare = join(data, "sessions", ".spare-store");
		const stores = new SessionStores(data, { spareRefillMs: 0 });
		try {
			expect(existsSync(spare)).toBe(false);
			stores.keepSpare();
			await waitUntil(() => existsSync(spare), "the first spare");
			const made = statSync(spare);
			expect(made.mode & 0o777).toBe(0o600);

			// The session that already had a store keeps it, with its entries.
			const kept = stores.get(id);
			expect(kept.count("main")).toBe(0);
			store.append("main", message(1));
			expect(stores.get(id).count("main")).toBe(1);
			expect(existsSync(spare)).toBe(true);

			// A new session's store is the spare's file, renamed: it works like any other.
			const fresh = crypto.randomUUID();
			const taken = stores.get(fresh);
			expect(statSync(join(data, "sessions", `${fresh}.sqlite`)).ino).toBe(made.ino);
			expect(existsSync(spare)).toBe(false);
			taken.append("main", message(2));
			expect(taken.window("main", 10).map((e) => e.data)).toEqual([{ i: 2 }]);
			await waitUntil(() => existsSync(spare), "the next spare");
			expect(statSync(spare).ino).not.toBe(made.ino);
		} finally {
			stores.closeAll();
		}
	});
});
