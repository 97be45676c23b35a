import { describe, expect, test } from "bun:test";
import { applyPatch, onlyAppends, PatchError, PatchOp } from "../../src/protocol/patch.ts";

describe("applyPatch", () => {
	const base = { text: "he", list: [1, 2], nested: { a: { b: "x" } } };

	test("appends text, pushes and splices lists, sets and deletes keys", () => {
		const next = applyPatch(base, [
			{ op: "append", path: ["text"], text: "llo" },
			{ op: "push", path: ["list"], items: [3] },
			{ op: "splice", path: ["list"], start: 0, remove: 1, items: [] },
			{ op: "set", path: ["nested", "a", "c"], value: 1 },
			{ op: "del", path: ["nested", "a", "b"] },
		]);
		expect(next).toEqual({ text: "hello", list: [2, 3], nested: { a: { c: 1 } } } as never);
	});

	test("never modifies the input and shares untouched branches", () => {
		const frozen = structuredClone(base);
		const next = applyPatch(base, [{ op: "append", path: ["text"], text: "!" }]);
		expect(base).toEqual(frozen);
		expect(next.nested).toBe(base.nested);
		expect(next.list).toBe(base.list);
	});

	test("a failing op leaves the state as it was", () => {
		expect(() =>
			applyPatch(base, [
				{ op: "append", path: ["text"], text: "!" },
				{ op: "append", path: ["list"], text: "x" },
			]),
		).toThrow(PatchError);
		expect(base.text).toBe("he");
	});

	test.each([
		[{ op: "set", path: ["__proto__", "polluted"], value: 1 }],
		[{ op: "set", path: ["nested", "constructor", "x"], value: 1 }],
		[{ op: "append", path: ["missing"], text: "x" }],
		[{ op: "push", path: ["text"], items: [1] }],
		[{ op: "splice", path: ["list"], start: 5, remove: 0, items: [] }],
		[{ op: "set", path: ["list", 9], value: 1 }],
		[{ op: "del", path: ["list", 0] }],
	] as PatchOp[][])("refuses %j", (op) => {
		expect(() => applyPatch(base, [op])).toThrow(PatchError);
		expect(({} as Record<string, unknown>).polluted).toBeUndefined();
	});

	test("the op schema rejects unknown ops and bad paths", () => {
		expect(PatchOp({ op: "eval", path: [] }).toString()).toContain("op");
		expect(PatchOp({ op: "set", path: [-1], value: 1 }).toString()).toContain("path");
		expect(onlyAppends([{ op: "append", path: ["a"], text: "" }])).toBe(true);
		expect(onlyAppends([{ op: "set", path: ["a"], value: "" }])).toBe(false);
	});
});

describe("textPatch", () => {
	test("an append when the text only grew, a set otherwise (a tail that dropped its start)", async () => {
		const { textPatch } = await import("../../src/protocol/patch.ts");
		expect(textPatch(["out"], "ab", "abc")).toEqual({ op: "append", path: ["out"], text: "c" });
		expect(textPatch(["out"], "abc", "bcd")).toEqual({ op: "set", path: ["out"], value: "bcd" });
	});
});
