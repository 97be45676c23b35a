import { describe, expect, test } from "bun:test";
import { RateWindow } from "../../src/protocol/rate-window.ts";

describe("the rate window", () => {
	test("a budget per key per window, whole again in the next window; a refusal is reported once per window", () => {
		let now = 0;
		const rate = new RateWindow(1000, { now: () => now });
		expect(rate.take("output", 600, 1000)).toBe(true);
		expect(rate.take("output", 500, 1000)).toBe(false);
		expect(rate.take("output", 400, 1000)).toBe(true);
		expect(rate.take("frames", 1, 1)).toBe(true);
		expect(rate.take("frames", 1, 1)).toBe(false);
		expect(rate.firstRefusal("frames")).toBe(true);
		expect(rate.firstRefusal("frames")).toBe(false);
		expect(rate.untilNext()).toBe(1000);
		now = 999;
		expect(rate.take("output", 1, 1000)).toBe(false);
		now = 1000;
		expect(rate.take("output", 1000, 1000)).toBe(true);
		expect(rate.firstRefusal("frames")).toBe(true);
	});

	test("a flood of keys cannot grow it without end: keys beyond the bound are refused until the window turns", () => {
		let now = 0;
		const rate = new RateWindow(60_000, { now: () => now, maxKeys: 3 });
		for (const peer of ["a", "b", "c"]) expect(rate.take(peer, 1, 20)).toBe(true);
		expect(rate.take("d", 1, 20)).toBe(false);
		expect(rate.take("a", 1, 20)).toBe(true);
		now = 60_000;
		expect(rate.take("d", 1, 20)).toBe(true);
	});
});
