import { describe, expect, test } from "bun:test";
import { exitLine, exitText } from "../../src/guest/exit-text.ts";
import { MAX_EXIT_TEXT_CHARS, MAX_OUTPUT_CHARS } from "../../src/protocol/channel-kinds.ts";

describe("the exit transcript the UI sends", () => {
	test("a line keeps its colors and loses pi-tui's marks, links, cursor marker and controls", () => {
		const line =
			"\x1b]133;A\x07\x1b[48;5;236m hello \x1b]8;;https://x\x07link\x1b]8;;\x07\x1b_pi:c\x07\x1b[?25l\x1b[0m  ";
		expect(exitLine(line)).toBe("\x1b[48;5;236m hello link\x1b[0m");
		expect(exitLine("a\tb\x07c\x1bd")).toBe("abc");
	});

	test("a long transcript keeps its latest lines within the channel's limits and says what it left out", () => {
		const lines = Array.from({ length: 20_000 }, (_, i) => `\x1b[2mline ${i} ${"x".repeat(60)}\x1b[22m`);
		const text = exitText(lines);
		expect(text.length).toBeLessThanOrEqual(MAX_EXIT_TEXT_CHARS);
		expect(JSON.stringify({ kind: "exitOutput", text, resumable: true }).length).toBeLessThanOrEqual(MAX_OUTPUT_CHARS);
		expect(text.endsWith(`line 19999 ${"x".repeat(60)}\x1b[22m`)).toBe(true);
		expect(text.split("\n")[0]).toMatch(/^… \d+ earlier lines left out$/);
		expect(exitText(["one", "two"])).toBe("one\ntwo");
	});
});
