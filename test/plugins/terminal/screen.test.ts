/**
 * The panel draws the emulator's cells and their attributes only: whatever a program prints (clipboard writes,
 * links, device strings, titles, queries, 8-bit controls, a huge line) never reaches the lines as written.
 */
import { expect, test } from "bun:test";
import { visibleWidth } from "@earendil-works/pi-tui";
import { CLIPBOARD_BASE64, CLIPBOARD_SECRET, CONTROL, drawHostile, NOT_SGR, withoutSgr } from "./hostile-output.ts";

test("a hostile program's output is drawn as cells and colors, nothing else", async () => {
	expect(atob(CLIPBOARD_BASE64)).toBe(CLIPBOARD_SECRET);
	const { lines, modes } = await drawHostile();
	expect(lines).toHaveLength(24);
	for (const line of lines) {
		expect(line).not.toMatch(NOT_SGR);
		expect(withoutSgr(line)).not.toMatch(CONTROL);
		expect(visibleWidth(line)).toBeLessThanOrEqual(60);
	}
	const text = lines.map(withoutSgr).join("\n");
	for (const hidden of [
		"evil",
		CLIPBOARD_SECRET,
		CLIPBOARD_BASE64,
		"SIXEL",
		"APC-payload",
		"PM-payload",
		"c1-title",
		"544e",
	]) {
		expect(text).not.toContain(hidden);
	}
	// What is text is drawn, with its colors as SGR.
	expect(text).toContain("plain red bold rgb bg");
	expect(text).toContain("link-text");
	expect(text).toContain("after-c1");
	expect(text).toContain("wide 日本 done");
	expect(lines.join("\n")).toContain("\x1b[0;1;31mred bold");
	expect(lines.join("\n")).toContain("\x1b[0;38;2;1;2;3mrgb");
	expect(lines.join("\n")).toContain("\x1b[0;48;5;200mbg");
	// The huge line is cut to the panel's width.
	expect(text).toContain("x".repeat(60));
	// The modes the program asked for are known to the keys (bracketed paste), not passed on.
	expect(modes.bracketedPaste).toBe(true);
});
