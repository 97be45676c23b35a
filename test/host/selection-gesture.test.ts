import { describe, expect, test } from "bun:test";
import { SelectionGesture } from "../../src/host/selection-gesture.ts";

describe("the selection gesture", () => {
	test("a drag ended by a left release, or a double click, allows one copy just after; a plain click does not", () => {
		const g = new SelectionGesture();
		g.observe("\x1b[<0;5;5M", 1000);
		g.observe("\x1b[<0;5;5m", 1050);
		expect(g.take(1100)).toBe(false);
		g.observe("\x1b[<0;5;5M\x1b[<32;9;5M\x1b[<32;12;5M", 5000);
		g.observe("\x1b[<0;12;5m", 5100);
		expect(g.take(5200)).toBe(true);
		expect(g.take(5300)).toBe(false);
		g.observe("\x1b[<0;5;5M\x1b[<0;5;5m", 9000);
		g.observe("\x1b[<0;5;5M\x1b[<0;5;5m", 9200);
		expect(g.take(9300)).toBe(true);
		g.observe("\x1b[<0;5;5M\x1b[<32;9;5M\x1b[<0;9;5m", 20_000);
		expect(g.take(23_000)).toBe(false);
	});
});
