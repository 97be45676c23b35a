import type { Database } from "bun:sqlite";
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ChatEntry, chatContract } from "../../../src/plugins/chat/contract.ts";
import { sessionsContract } from "../../../src/plugins/sessions/contract.ts";
import { DEVICE_TOKEN_HEADER } from "../../../src/protocol/server-info.ts";
import { defaultPlugins } from "../../../src/server/plugins.ts";
import { startServer } from "../../../src/server/server.ts";
import { StoreFullError } from "../../../src/server/store/errors.ts";
import { SessionStore } from "../../../src/server/store/session-store.ts";
import { sqliteCode } from "../../../src/server/store/sqlite.ts";
import { fakeModelDirs } from "../../support/fake-openai.ts";
import { connectClient, FAST_RETRY, waitForState } from "../../support/p2-server.ts";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
	for (const f of cleanups.splice(0).reverse()) await f();
});

/** A server whose session stores can be filled up, a session, and its conversation open. */
async function setup() {
	const { dataDir, cwd, fake } = await fakeModelDirs(cleanups, "p2-full-");
	const connections = new Map<string, Database>();
	const server = await startServer({
		dataDir,
		plugins: defaultPlugins(),
		env: {},
		retry: FAST_RETRY,
		configureDatabase: (db, path) => connections.set(path, db),
	});
	cleanups.push(() => server.stop());
	const client = await connectClient(server, { [DEVICE_TOKEN_HEADER]: server.deviceToken });
	cleanups.push(() => client.close());
	const sessions = await client.open(sessionsContract, {});
	const { id } = await sessions.call("create", { cwd });
	const chat = await client.open(chatContract, { session: id, conversation: "main" });
	const store = server.ctx.stores.get(id);
	const db = connections.get(store.path);
	if (!db) throw new Error("the session store's connection was not handed out");
	return { server, fake, chat, store, db };
}

/** Fills the file to its last byte and forbids it to grow: the next entry fails as on a full disk. */
function fillUp(db: Database): void {
	const pages = db.query<{ page_count: number }, []>("PRAGMA page_count").get()!.page_count;
	db.exec(`PRAGMA max_page_count=${pages}`);
	for (const size of [4000, 1000, 100, 10, 1]) {
		for (;;) {
			try {
				db.run("INSERT INTO entries (conversation, kind, data, at) VALUES ('filler', 'filler', ?, 0)", [
					"x".repeat(size),
				]);
			} catch (error) {
				if (sqliteCode(error) === "SQLITE_FULL") break;
				throw error;
			}
		}
	}
}

function makeRoom(db: Database): void {
	db.exec("PRAGMA max_page_count=1073741823");
}

const texts = (entries: readonly ChatEntry[]) =>
	entries.map((e) => (e.kind === "user" ? `user:${e.text}` : e.kind === "error" ? `error:${e.message}` : e.kind));

test("a send on a full disk stores nothing and says so; once there is room the same request runs once", async () => {
	const { fake, chat, store, db } = await setup();
	fillUp(db);
	const refused = await chat.call("send", { text: "hello", mode: "steer", requestId: "full-disk-1" }).catch((e) => e);
	expect(refused.code).toBe("unavailable");
	expect(refused.message).toStartWith(`The server's disk is full (${store.path} could not be written)`);
	expect(chat.state?.entries).toEqual([]);
	expect(chat.state?.live).toBeNull();
	expect(store.activeRun("main")).toBeUndefined();
	expect(store.count("main")).toBe(0);

	makeRoom(db);
	fake.enqueue({ text: "Hi." });
	expect(await chat.call("send", { text: "hello", mode: "steer", requestId: "full-disk-1" })).toEqual({
		status: "started",
	});
	const state = await waitForState(chat, (s) => s.live === null && s.entries.length === 2);
	expect(texts(state.entries)).toEqual(["user:hello", "assistant"]);
	expect(fake.requests.length).toBe(1);
});

test("the catalog failing to record activity after the message was stored does not wedge the conversation", async () => {
	const { server, fake, chat, store } = await setup();
	server.ctx.catalog.touch = () => {
		throw new StoreFullError(join(server.ctx.dataDir, "catalog.sqlite"));
	};
	fake.enqueue({ text: "First." }, { text: "Second." });
	expect(await chat.call("send", { text: "one", mode: "steer", requestId: "touch-fails-1" })).toEqual({
		status: "started",
	});
	await waitForState(chat, (s) => s.live === null && s.entries.length === 2);
	expect(store.activeRun("main")).toBeUndefined();
	expect(await chat.call("send", { text: "two", mode: "steer", requestId: "touch-fails-2" })).toEqual({
		status: "started",
	});
	const state = await waitForState(chat, (s) => s.live === null && s.entries.length === 4);
	expect(texts(state.entries)).toEqual(["user:one", "assistant", "user:two", "assistant"]);
});

test("a run whose end cannot be stored still ends; its end is stored before the next run, once there is room", async () => {
	const { fake, chat, store } = await setup();
	const endRun = store.endRun.bind(store);
	let full = true;
	store.endRun = (...args) => {
		if (full) throw new StoreFullError(store.path);
		return endRun(...args);
	};
	fake.enqueue({ text: "Done." });
	await chat.call("send", { text: "one", mode: "steer", requestId: "end-fails-1" });
	const ended = await waitForState(chat, (s) => s.live === null && s.entries.length === 2);
	const runId = store.window("main", 10)[1]?.runId ?? "";
	expect(store.run(runId)?.status).toBe("running");

	// Still full: the next message is refused whole, and nothing of it is stored.
	const refused = await chat.call("send", { text: "two", mode: "steer", requestId: "end-fails-2" }).catch((e) => e);
	expect(refused.message).toStartWith("The server's disk is full (");
	expect(chat.state?.entries).toEqual(ended.entries);

	full = false;
	fake.enqueue({ text: "Again." });
	await chat.call("send", { text: "two", mode: "steer", requestId: "end-fails-2" });
	await waitForState(chat, (s) => s.live === null && s.entries.length === 4);
	expect(store.run(runId)?.status).toBe("done");
});

test("a turn's entry and its run are stored together or not at all", async () => {
	const dataDir = mkdtempSync(join(tmpdir(), "p2-full-store-"));
	cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
	let db: Database | undefined;
	const store = SessionStore.open(dataDir, crypto.randomUUID(), { configure: (opened) => (db = opened) });
	cleanups.push(() => store.close());
	store.enqueue("main", { id: "q1", mode: "followUp", text: "queued", author: null, requestId: "queued-1" });
	fillUp(db!);
	const turn = {
		runId: "run-1",
		delivered: "q1",
		entry: { kind: "user", data: { text: "queued" }, requestId: "queued-1" },
	};
	expect(() => store.beginTurn("main", turn)).toThrow(StoreFullError);
	expect(store.run("run-1")).toBeUndefined();
	expect(store.count("main")).toBe(0);
	expect(store.queued("main").map((q) => q.id)).toEqual(["q1"]);

	makeRoom(db!);
	const started = store.beginTurn("main", turn);
	expect(started.run.status).toBe("running");
	expect(started.entry?.requestId).toBe("queued-1");
	expect(store.queued("main")).toEqual([]);
});
