import { describe, expect, test } from "bun:test";
import { EXCLUSIVE_CONTEXTS } from "../../src/guest/keymap.ts";
import { canOverlap, parseWhen } from "../../src/guest/when.ts";

const set = (...names: string[]) => new Set(names);

describe("when expressions", () => {
	test("!, && and || with parentheses, over the context set", () => {
		const when = parseWhen("chat && (editorEmpty || !editorFocused) && !overlay");
		expect(when.test(set("chat", "editorEmpty", "editorFocused"))).toBe(true);
		expect(when.test(set("chat"))).toBe(true);
		expect(when.test(set("chat", "editorFocused"))).toBe(false);
		expect(when.test(set("chat", "editorEmpty", "overlay"))).toBe(false);
		expect(when.test(set("sessions", "editorEmpty"))).toBe(false);
		expect(parseWhen("overlay:palette").test(set("overlay", "overlay:palette"))).toBe(true);
	});

	test("specificity counts the names; required are the names on every path", () => {
		expect(parseWhen(undefined).specificity).toBe(0);
		expect(parseWhen(undefined).test(set())).toBe(true);
		expect(parseWhen("chat").specificity).toBe(1);
		const when = parseWhen("overlay:x && (busy || !editorEmpty)");
		expect(when.specificity).toBe(3);
		expect([...when.required]).toEqual(["overlay:x"]);
		expect([...parseWhen("a && b || a && c").required]).toEqual(["a"]);
		expect([...parseWhen("!overlay").required]).toEqual([]);
	});

	test("what does not parse says where", () => {
		expect(() => parseWhen("chat &&")).toThrow('when "chat &&": expected a context name at 8');
		expect(() => parseWhen("(chat")).toThrow("expected )");
		expect(() => parseWhen("chat busy")).toThrow("unexpected text at 6");
		expect(() => parseWhen("chat & busy")).toThrow("unexpected text");
	});

	test("overlap: two expressions that can hold at once, with screens and roles exclusive", () => {
		const overlap = (a: string, b: string) => canOverlap(parseWhen(a), parseWhen(b), EXCLUSIVE_CONTEXTS);
		expect(overlap("chat", "chat && busy")).toBe(true);
		expect(overlap("chat && busy", "chat && !busy")).toBe(false);
		expect(overlap("chat", "sessions")).toBe(false);
		expect(overlap("owner", "guest")).toBe(false);
		expect(overlap("overlay:palette", "!overlay")).toBe(false);
		expect(overlap("", "anything")).toBe(true);
	});
});
