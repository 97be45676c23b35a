import { expect, test } from "bun:test";
import type { ChatEntry } from "../../../src/plugins/chat/contract.ts";
import { EntryHistory } from "../../../src/plugins/chat/tui/entry-history.ts";

const entry = (seq: number, text = `m${seq}`): ChatEntry => ({
	seq,
	at: seq,
	kind: "error",
	message: text,
});

test("entries stay in seq order across a sliding window and older pages; a new object for a seq replaces it", () => {
	const history = new EntryHistory();
	history.merge([entry(5), entry(6), entry(7)]);
	// The window slid: 5 left it, 8 arrived. 5 stays.
	history.merge([entry(6), entry(7), entry(8)]);
	history.merge([entry(2), entry(3), entry(4)]);
	expect(history.entries.map((e) => e.seq)).toEqual([2, 3, 4, 5, 6, 7, 8]);
	history.merge([entry(4, "changed")]);
	expect(history.entries.map((e) => e.seq)).toEqual([2, 3, 4, 5, 6, 7, 8]);
	expect(history.entries[2]).toEqual(entry(4, "changed"));
	expect(history.first?.seq).toBe(2);
	expect(history.last?.seq).toBe(8);
});

test("the version changes when the entries do, not when the same ones come again; a new history never repeats one", () => {
	const history = new EntryHistory();
	const five = entry(5);
	history.merge([five]);
	const seen = history.version;
	history.merge([five]);
	expect(history.version).toBe(seen);
	history.merge([entry(6)]);
	expect(history.version).not.toBe(seen);
	const changed = history.version;
	history.merge([entry(5, "again, as a new object")]);
	expect(history.version).not.toBe(changed);
	expect(new EntryHistory().version).not.toBe(history.version);
});
