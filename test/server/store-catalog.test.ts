import { Database } from "bun:sqlite";
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Catalog } from "../../src/server/store/catalog.ts";
import { StoreClosedError, StoreCorruptError, StoreError, StoreOpenError } from "../../src/server/store/errors.ts";

let data: string;
let catalog: Catalog;
beforeEach(() => {
	data = mkdtempSync(join(tmpdir(), "p2-catalog-"));
	catalog = Catalog.open(data);
});
afterEach(() => {
	catalog.close();
	rmSync(data, { recursive: true, force: true });
});

describe("Catalog", () => {
	test("create fills defaults and get reads it back", () => {
		const row = catalog.create({ cwd: "/work" });
		expect(row).toEqual({
			id: expect.stringMatching(/^[0-9a-f-]{36}$/),
			title: "",
			cwd: "/work",
			env: "local",
			model: null,
			thinkingLevel: null,
			pinned: false,
			archived: false,
			createdAt: row.createdAt,
			updatedAt: row.createdAt,
			parent: null,
		});
		expect(catalog.get(row.id)).toEqual(row);
		expect(catalog.get(crypto.randomUUID())).toBeUndefined();
	});

	test("create takes every optional field", () => {
		const parent = catalog.create({ cwd: "/a" });
		const row = catalog.create({
			cwd: "/b",
			env: "ssh:box",
			title: "Fix it",
			parent: parent.id,
			model: "anthropic/claude",
			thinkingLevel: "high",
		});
		expect(catalog.get(row.id)).toMatchObject({
			cwd: "/b",
			env: "ssh:box",
			title: "Fix it",
			parent: parent.id,
			model: "anthropic/claude",
			thinkingLevel: "high",
		});
	});

	test("update changes only the patched fields and leaves the last activity (updatedAt) as it was", () => {
		const row = catalog.create({ cwd: "/a", title: "old", model: "p/m" });
		const renamed = catalog.update(row.id, { title: "new" });
		expect(renamed).toMatchObject({ title: "new", model: "p/m", pinned: false });
		expect(renamed.updatedAt).toBe(row.updatedAt);
		const changed = catalog.update(row.id, { pinned: true, archived: true, model: null, thinkingLevel: "low" });
		expect(changed).toMatchObject({ title: "new", pinned: true, archived: true, model: null, thinkingLevel: "low" });
		expect(changed.createdAt).toBe(row.createdAt);
		expect(changed.updatedAt).toBe(row.updatedAt);
		expect(catalog.get(row.id)).toEqual(changed);
		expect(catalog.update(row.id, {})).toEqual(changed);
		expect(() => catalog.update(crypto.randomUUID(), { title: "x" })).toThrow(StoreError);
		expect(() => catalog.update(crypto.randomUUID(), {})).toThrow(StoreError);
	});

	test("list is newest first, touch moves a session up, and the archived filter selects a scope", () => {
		const a = catalog.create({ cwd: "/a" });
		const b = catalog.create({ cwd: "/b" });
		const c = catalog.create({ cwd: "/c" });
		expect(catalog.list().map((r) => r.id)).toEqual([c.id, b.id, a.id]);
		expect(catalog.touch(a.id)).toBe(true);
		expect(catalog.touch(crypto.randomUUID())).toBe(false);
		expect(catalog.list({}).map((r) => r.id)).toEqual([a.id, c.id, b.id]);
		catalog.update(c.id, { archived: true });
		expect(catalog.list({ archived: false }).map((r) => r.id)).toEqual([a.id, b.id]);
		expect(catalog.list({ archived: true }).map((r) => r.id)).toEqual([c.id]);
		expect(catalog.list().map((r) => r.id)).toEqual([a.id, c.id, b.id]);
	});

	test("rows survive a reopen, and the order stays right after it", () => {
		const a = catalog.create({ cwd: "/a", title: "kept" });
		catalog.close();
		catalog = Catalog.open(data);
		expect(catalog.get(a.id)).toEqual(a);
		const b = catalog.create({ cwd: "/b" });
		expect(b.updatedAt).toBeGreaterThan(a.updatedAt);
		expect(catalog.list().map((r) => r.id)).toEqual([b.id, a.id]);
	});

	test("a damaged row gives a clear error from get and is skipped by list", () => {
		const good = catalog.create({ cwd: "/good" });
		const bad = catalog.create({ cwd: "/bad" });
		catalog.close();
		const raw = new Database(join(data, "catalog.sqlite"));
		raw.run("UPDATE sessions SET pinned = 7 WHERE id = ?", [bad.id]);
		raw.close();
		const reported: StoreCorruptError[] = [];
		catalog = Catalog.open(data, { onCorrupt: (e) => reported.push(e) });
		expect(() => catalog.get(bad.id)).toThrow(StoreCorruptError);
		expect(catalog.list().map((r) => r.id)).toEqual([good.id]);
		expect(reported[0]?.message).toContain(bad.id);
	});

	test("a closed catalog refuses calls; a file that is not a database is refused on open", async () => {
		catalog.close();
		expect(() => catalog.list()).toThrow(StoreClosedError);
		const other = mkdtempSync(join(tmpdir(), "p2-catalog-bad-"));
		await Bun.write(join(other, "catalog.sqlite"), "this is not sqlite at all, not even close".repeat(20));
		expect(() => Catalog.open(other)).toThrow(StoreOpenError);
		rmSync(other, { recursive: true, force: true });
		catalog = Catalog.open(data);
	});
});
