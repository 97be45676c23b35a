import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { searchSessions, snippet } from "../../../src/plugins/search/server.ts";
import type { ServerContext } from "../../../src/server/plugin.ts";
import { Catalog } from "../../../src/server/store/catalog.ts";
import { SessionStores } from "../../../src/server/store/session-stores.ts";

let dir = "";
let close: (() => void) | undefined;
afterEach(() => {
	close?.();
	if (dir) rmSync(dir, { recursive: true, force: true });
});

function seeded() {
	dir = mkdtempSync(join(tmpdir(), "p2-search-"));
	const catalog = Catalog.open(dir);
	const stores = new SessionStores(dir);
	close = () => {
		stores.closeAll();
		catalog.close();
	};
	const author = { id: "device", name: "this device", role: "deviceOwner" };
	const add = (title: string, texts: string[]) => {
		const session = catalog.create({ cwd: "/", title });
		const store = stores.get(session.id);
		for (const text of texts) store.append("main", { kind: "user", data: { kind: "user", text }, author });
		store.append("main", {
			kind: "assistant",
			data: {
				kind: "assistant",
				message: { role: "assistant", content: [{ type: "text", text: `answer about ${title}` }] },
			},
		});
		return session.id;
	};
	return { ctx: { catalog, stores } as unknown as ServerContext, add };
}

describe("message search", () => {
	test("literal and case-insensitive over user and assistant text, newest session first, with snippets", () => {
		const { ctx, add } = seeded();
		const a = add("alpha", ["the quick brown fox", "nothing here"]);
		const b = add("beta", ["A Quick question\nwith lines"]);
		const { hits, truncated } = searchSessions(ctx, { query: "quick" });
		expect(truncated).toBe(false);
		expect(hits.map((h) => [h.session, h.kind, h.snippet])).toEqual([
			[b, "user", "A Quick question with lines"],
			[a, "user", "the quick brown fox"],
		]);
		expect(searchSessions(ctx, { query: "answer about alpha" }).hits.map((h) => [h.session, h.kind])).toEqual([
			[a, "assistant"],
		]);
		// JSON keys and punctuation of the stored form never match.
		expect(searchSessions(ctx, { query: '"kind"' }).hits).toEqual([]);
	});

	test("at most the limit, and truncated says there is more", () => {
		const { ctx, add } = seeded();
		for (let i = 0; i < 5; i++) add(`s${i}`, ["needle one", "needle two"]);
		const { hits, truncated } = searchSessions(ctx, { query: "needle", limit: 7 });
		expect(hits.length).toBe(7);
		expect(truncated).toBe(true);
	});

	test("snippets keep context around the match and fold control characters", () => {
		const long = `${"x".repeat(200)} the match \x1b[31m here ${"y".repeat(200)}`;
		const shown = snippet(long, "MATCH")!;
		expect(shown).toContain("the match");
		expect(shown.startsWith("…")).toBe(true);
		expect(shown.endsWith("…")).toBe(true);
		expect(shown).not.toContain("\x1b");
		expect(shown.length).toBeLessThanOrEqual(122);
		expect(snippet("abc", "zzz")).toBeUndefined();
	});
});
