import { describe, expect, test } from "bun:test";
import { type } from "../../src/protocol/ark.ts";
import { CLOSE_CODES } from "../../src/protocol/codes.ts";
import { defineContract, method } from "../../src/protocol/contract.ts";
import { CHARS_PER_TOKEN, FrameBudget, frameCost, GuestBudgets } from "../../src/server/objects/frame-budget.ts";
import { type ConnectionLimits, type Ending, ObjectHost } from "../../src/server/objects/host.ts";
import { LiveState } from "../../src/server/objects/live-state.ts";
import type { Principal } from "../../src/server/objects/principal.ts";
import { FakeClock } from "../support/fake-clock.ts";

const note = defineContract({
	name: "note",
	version: 1,
	input: type({ name: "string" }),
	methods: { mark: method(type("null"), type("null")) },
	variants: {
		deviceOwner: { state: type({ n: "number" }), methods: ["mark"] },
		owner: { state: type({ n: "number" }), methods: ["mark"] },
		full: { state: type({ n: "number" }), methods: ["mark"] },
		view: { state: type({ n: "number" }), methods: [] },
	},
});

const owner: Principal = { role: "owner", id: "owner:1", name: "owner" };
const viewer: Principal = { role: "view", id: "guest:1", name: "Ann", session: "s" };
const other: Principal = { role: "full", id: "guest:2", name: "Bo", session: "s" };

/** Refill so slow that none arrives while a test runs: what is taken is all there is. */
const STILL: Partial<ConnectionLimits> = { framesPerSecond: 0.001, burst: 10 };

function setup() {
	const host = new ObjectHost();
	host.serve(note, { open: () => ({ state: new LiveState({ n: 0 }), methods: { mark: () => null } }) });
	const wire = (principal: Principal, limits: Partial<ConnectionLimits> = STILL) => {
		const sent: Record<string, unknown>[] = [];
		const ended: (Ending | undefined)[] = [];
		const connection = host.connect(
			principal,
			{ send: (text) => sent.push(JSON.parse(text)), close: (why) => ended.push(why) },
			limits,
		);
		return { connection, sent, ended };
	};
	return { host, wire };
}

const open = (h: number, name = "n") => JSON.stringify({ t: "open", h, object: "note", version: 1, input: { name } });
const codes = (sent: Record<string, unknown>[]) => sent.filter((f) => f.t !== "hello").map((f) => f.code ?? f.t);

describe("a frame budget", () => {
	test("takes up to its burst, then drops; with an overdraft, a sender going on past it is exhausted once", () => {
		const clock = new FakeClock();
		const budget = new FrameBudget({ perSecond: 10, burst: 3 }, { overdraft: 3, now: () => clock.now() });
		expect([1, 2, 3, 4, 5, 6].map(() => budget.spend(1))).toEqual([
			"taken",
			"taken",
			"taken",
			"dropped",
			"dropped",
			"exhausted",
		]);
		// It starts again from empty: a second's refill is taken again.
		expect(budget.spend(1)).toBe("dropped");
		clock.advance(1000);
		expect(budget.spend(1)).toBe("taken");
		expect(budget.whole()).toBe(false);
		clock.advance(1000);
		expect(budget.whole()).toBe(true);
	});

	test("without an overdraft it only drops, however long the sender goes on", () => {
		const budget = new FrameBudget({ perSecond: 0.001, burst: 2 });
		const spent = Array.from({ length: 1000 }, () => budget.spend(1));
		expect(spent.slice(0, 2)).toEqual(["taken", "taken"]);
		expect(new Set(spent.slice(2))).toEqual(new Set(["dropped"]));
	});

	test("a large frame costs more than a small one, bounded by the frame limit", () => {
		expect(frameCost(10, 1024 * 1024)).toBe(1);
		expect(frameCost(CHARS_PER_TOKEN * 4, 1024 * 1024)).toBe(5);
		expect(frameCost(16 * 1024 * 1024, 1024 * 1024)).toBe(frameCost(1024 * 1024, 1024 * 1024));
	});
});

describe("frames past the budget", () => {
	test("a guest's connections share one budget: the flooder is closed saying so, their next connection starts short", async () => {
		const { host, wire } = setup();
		const first = wire(viewer);
		const second = wire(viewer);
		for (let i = 0; i < 30; i++) await first.connection.receive("{not json");
		expect(first.ended).toEqual([
			{ code: CLOSE_CODES.tooManyFrames, reason: expect.stringContaining("too many frames from this guest") },
		]);
		expect(first.sent.find((f) => f.code === "rate_limited")?.message).toContain("from this guest");
		// The same guest's other connection found the budget spent, and a new one does too.
		await second.connection.receive(open(1));
		expect(codes(second.sent)).toEqual(["rate_limited"]);
		const third = wire(viewer);
		await third.connection.receive(open(1));
		expect(codes(third.sent)).toEqual(["rate_limited"]);
		expect(host.connectedPrincipals().filter((p) => p.id === viewer.id)).toHaveLength(2);
	});

	test("another guest and the owner are served while a guest floods", async () => {
		const { wire } = setup();
		const flooder = wire(viewer);
		for (let i = 0; i < 30; i++) await flooder.connection.receive("{not json");
		expect(flooder.ended).toHaveLength(1);
		for (const principal of [other, owner]) {
			const { connection, sent } = wire(principal);
			await connection.receive(open(1));
			await connection.receive(JSON.stringify({ t: "call", h: 1, id: 1, method: "mark", args: null }));
			expect(codes(sent)).toEqual(["snapshot", "result"]);
		}
	});

	test("an owner's connection is never closed for its pace, and their new connection is served at once", async () => {
		const { wire } = setup();
		const runaway = wire(owner);
		for (let i = 0; i < 1000; i++) await runaway.connection.receive("{not json");
		expect(runaway.ended).toEqual([]);
		expect(runaway.sent.at(-1)).toMatchObject({ code: "rate_limited", message: expect.stringContaining("connection") });
		const fresh = wire(owner);
		await fresh.connection.receive(open(1));
		expect(codes(fresh.sent)).toEqual(["snapshot"]);
	});

	test("binary frames count against the budget too", async () => {
		const { wire } = setup();
		const flooder = wire(viewer);
		for (let i = 0; i < 30; i++) await flooder.connection.receive(new Uint8Array(8));
		expect(flooder.sent.find((f) => f.t === "refused")).toMatchObject({
			code: "bad_frame",
			message: "frames are text",
		});
		expect(flooder.ended[0]?.code).toBe(CLOSE_CODES.tooManyFrames);
	});

	test("a guest's budget outlives their connections until it is whole again", () => {
		const budgets = new GuestBudgets();
		const spent = budgets.hold(viewer.id, { perSecond: 0.001, burst: 10 });
		expect(budgets.hold(viewer.id, { perSecond: 0.001, burst: 10 })).toBe(spent);
		spent.spend(5);
		budgets.release(viewer.id);
		budgets.release(viewer.id);
		expect(budgets.size).toBe(1);
		budgets.hold(other.id, { perSecond: 1e9, burst: 10 }).spend(5);
		budgets.release(other.id);
		expect(budgets.size).toBe(1);
	});
});
