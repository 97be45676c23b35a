import { Database } from "bun:sqlite";
import { afterEach, describe, expect, spyOn, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { type ChatEntry, chatContract } from "../../src/plugins/chat/contract.ts";
import { sessionsContract } from "../../src/plugins/sessions/contract.ts";
import { DEVICE_TOKEN_HEADER } from "../../src/protocol/server-info.ts";
import { defaultPlugins } from "../../src/server/plugins.ts";
import { type P2Server, startServer } from "../../src/server/server.ts";
import { Catalog } from "../../src/server/store/catalog.ts";
import { rebuildCatalog } from "../../src/server/store/catalog-rebuild.ts";
import { StoreDamagedError } from "../../src/server/store/errors.ts";
import { SessionStore } from "../../src/server/store/session-store.ts";
import { startFakeOpenAI, writeFakeModelsJson } from "../support/fake-openai.ts";
import { connectClient, FAST_RETRY, waitForState } from "../support/p2-server.ts";
import { waitUntil } from "../support/wait.ts";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
	for (const f of cleanups.splice(0).reverse()) await f();
});

function tempDir(prefix: string): string {
	const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
	cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
	return dir;
}

/** A data directory with the fake provider, and servers started on it one after another. */
async function dataDirWithModels() {
	const dataDir = tempDir("p2-damaged-");
	const fake = await startFakeOpenAI();
	cleanups.push(() => fake.stop());
	writeFakeModelsJson(dataDir, fake.baseUrl);
	let current: P2Server | undefined;
	cleanups.push(() => current?.stop());
	return {
		dataDir,
		fake,
		async boot() {
			current = await startServer({ dataDir, plugins: defaultPlugins(), env: {}, retry: FAST_RETRY });
			return current;
		},
		async stop() {
			await current?.stop();
			current = undefined;
		},
	};
}

async function owner(server: P2Server) {
	const client = await connectClient(server, { [DEVICE_TOKEN_HEADER]: server.deviceToken });
	cleanups.push(() => client.close());
	return client;
}

const shown = (entries: readonly ChatEntry[]) =>
	entries.map((e) => (e.kind === "user" ? `user:${e.text}` : e.kind === "error" ? `error:${e.message}` : e.kind));

/** Files beside `name` in `dir` that a damaged store was moved to. */
const keptAside = (dir: string, name: string) => readdirSync(dir).filter((f) => f.startsWith(`${name}.damaged-`));

describe("a damaged or emptied session store", () => {
	for (const [what, damage, reason] of [
		["emptied", "", "the file is empty"],
		["overwritten", "not a database, just some words ".repeat(200), "file is not a database"],
	] as const) {
		test(`${what}: reported by name, moved aside, and the conversation says so before it starts afresh`, async () => {
			const env = await dataDirWithModels();
			const cwd = tempDir("p2-cwd-");
			let server = await env.boot();
			let c = await owner(server);
			const { id } = await (await c.open(sessionsContract, {})).call("create", { cwd });
			let chat = await c.open(chatContract, { session: id, conversation: "main" });
			await chat.call("send", { text: "first", mode: "steer", requestId: "damaged-first" });
			await waitForState(chat, (s) => s.live === null && s.entries.length === 2);
			await env.stop();

			const file = join(env.dataDir, "sessions", `${id}.sqlite`);
			writeFileSync(file, damage);
			const errors = spyOn(console, "error").mockImplementation(() => {});
			cleanups.push(() => errors.mockRestore());
			server = await env.boot();
			c = await owner(server);
			chat = await c.open(chatContract, { session: id, conversation: "main" });
			const [kept] = keptAside(join(env.dataDir, "sessions"), `${id}.sqlite`);
			expect(kept).toBeDefined();
			expect(readFileSync(join(env.dataDir, "sessions", kept!), "utf8")).toBe(damage);
			expect(errors.mock.calls.flat().join("\n")).toContain(`${file} could not be read (${reason}`);
			expect(shown(chat.state?.entries ?? [])).toEqual([
				`error:This session's history could not be read (${reason}); its file was kept as sessions/${kept} in the server's data directory. The conversation starts afresh here.`,
			]);

			await chat.call("send", { text: "second", mode: "steer", requestId: "damaged-second" });
			const state = await waitForState(chat, (s) => s.live === null && s.entries.length === 3);
			expect(shown(state.entries).slice(1)).toEqual(["user:second", "assistant"]);
			// Its catalog row is untouched, and the new store keeps a copy of it again.
			expect(server.ctx.catalog.get(id)?.title).toBe("first");
			expect(server.ctx.stores.get(id).meta()).toMatchObject({ id, title: "first", cwd });
		});
	}

	test("opening one directly refuses it, naming the file", () => {
		const dataDir = tempDir("p2-damaged-open-");
		const id = crypto.randomUUID();
		SessionStore.open(dataDir, id).close();
		const file = join(dataDir, "sessions", `${id}.sqlite`);
		writeFileSync(file, "");
		expect(() => SessionStore.open(dataDir, id)).toThrow(new StoreDamagedError(file, "the file is empty"));
		expect(readFileSync(file, "utf8")).toBe("");
	});
});

describe("a damaged, emptied or lost catalog", () => {
	for (const [what, damage] of [
		["overwritten", "garbage in place of the catalog ".repeat(300)],
		["emptied", ""],
		["deleted", null],
	] as const) {
		test(`${what}: rebuilt from the session stores at start, the old file kept aside`, async () => {
			const env = await dataDirWithModels();
			let server = await env.boot();
			const c = await owner(server);
			const sessions = await c.open(sessionsContract, {});
			const cwdA = tempDir("p2-cwd-a-");
			const cwdB = tempDir("p2-cwd-b-");
			const a = await sessions.call("create", { cwd: cwdA, title: "alpha" });
			const b = await sessions.call("create", { cwd: cwdB, title: "beta" });
			await sessions.call("pin", { id: a.id, pinned: true });
			await sessions.call("archive", { id: b.id });
			const chat = await c.open(chatContract, { session: a.id, conversation: "main" });
			await chat.call("send", { text: "hello", mode: "steer", requestId: "rebuild-hello" });
			await waitForState(chat, (s) => s.live === null && s.entries.length === 2);
			const before = server.ctx.catalog.list();
			c.close();
			await env.stop();

			const file = join(env.dataDir, "catalog.sqlite");
			if (damage === null) rmSync(file);
			else writeFileSync(file, damage);
			const errors = spyOn(console, "error").mockImplementation(() => {});
			cleanups.push(() => errors.mockRestore());
			server = await env.boot();
			// Everything comes back as it was; the time of last activity is the newest entry's when that is later.
			const after = server.ctx.catalog.list();
			const withoutTime = (list: typeof before) => list.map(({ updatedAt: _, ...rest }) => rest);
			expect(withoutTime(after)).toEqual(withoutTime(before));
			for (const [i, row] of after.entries()) expect(row.updatedAt).toBeGreaterThanOrEqual(before[i]!.updatedAt);
			const said = errors.mock.calls.flat().join("\n");
			expect(said).toContain(file);
			expect(said).toContain("the list of sessions was rebuilt: 2 restored, 0 left out");
			const kept = keptAside(env.dataDir, "catalog.sqlite");
			if (damage === null) expect(kept).toEqual([]);
			else expect(readFileSync(join(env.dataDir, kept[0]!), "utf8")).toBe(damage);
		});
	}

	test("a store that keeps no record is listed untitled; one that cannot be read is left out and named", () => {
		const dataDir = tempDir("p2-rebuild-");
		const old = SessionStore.open(dataDir, crypto.randomUUID());
		old.append("main", { kind: "user", data: { kind: "user", text: "from before" }, at: 1234 });
		old.close();
		const broken = crypto.randomUUID();
		SessionStore.open(dataDir, broken).close();
		writeFileSync(join(dataDir, "sessions", `${broken}.sqlite`), "broken");
		const catalog = Catalog.open(dataDir);
		cleanups.push(() => catalog.close());
		const said: string[] = [];
		expect(rebuildCatalog(dataDir, catalog, (m) => said.push(m))).toEqual({ restored: 1, skipped: 1 });
		expect(catalog.list()).toMatchObject([{ id: old.sessionId, title: "", cwd: homedir(), updatedAt: 1234 }]);
		expect(said.join("\n")).toContain(`${broken}.sqlite could not be read`);
		// Left in place for whoever opens it next, who moves it aside.
		expect(existsSync(join(dataDir, "sessions", `${broken}.sqlite`))).toBe(true);
	});

	test("every catalog change is copied into the session's store (a new one's just after the create answers)", async () => {
		const dataDir = tempDir("p2-mirror-");
		const stores = new Map<string, SessionStore>();
		const store = (id: string) => stores.get(id) ?? stores.set(id, SessionStore.open(dataDir, id)).get(id)!;
		const catalog = Catalog.open(dataDir, { mirror: (record) => store(record.id).setMeta(record) });
		cleanups.push(() => {
			catalog.close();
			for (const s of stores.values()) s.close();
		});
		const created = catalog.create({ cwd: "/w", title: "t" });
		expect(stores.has(created.id)).toBe(false);
		await waitUntil(() => stores.has(created.id), "the new session's store");
		expect(store(created.id).meta()).toEqual(created);
		const updated = catalog.update(created.id, { model: "p/m", archived: true });
		expect(store(created.id).meta()).toEqual(updated);
		const raw = new Database(join(dataDir, "sessions", `${created.id}.sqlite`), { readonly: true });
		cleanups.push(() => raw.close());
		expect(raw.query("SELECT COUNT(*) AS n FROM meta").get()).toEqual({ n: 1 });

		// Changed before its store was made: the store keeps the row as it is then, not as it was created.
		const second = catalog.create({ cwd: "/w" });
		const renamed = catalog.update(second.id, { title: "later" });
		await new Promise((resolve) => setImmediate(resolve));
		expect(store(second.id).meta()).toEqual(renamed);
	});
});
