import { expect, test } from "bun:test";
import { type FlushSchedule, LiveState } from "../../src/server/objects/live-state.ts";

/** A schedule the test runs by hand: `frame()` ends the current frame. */
function manualFrames() {
	const pending: (() => void)[] = [];
	const schedule: FlushSchedule = (flush) => {
		pending.push(flush);
	};
	const frame = () => {
		for (const flush of pending.splice(0)) flush();
	};
	return { schedule, frame, pending };
}

const initial = () => ({ text: "", notes: "", items: [] as number[] });

test("appends are held for a frame and merged per place; the state changes at once", () => {
	const frames = manualFrames();
	const live = new LiveState(initial(), frames);
	const sent: unknown[] = [];
	live.subscribe((json) => sent.push(JSON.parse(json)));
	live.update([{ op: "append", path: ["text"], text: "Hel" }]);
	live.update([{ op: "append", path: ["text"], text: "lo" }]);
	live.update([{ op: "append", path: ["notes"], text: "a" }]);
	live.update([{ op: "append", path: ["notes"], text: "b" }]);
	expect(live.state.text).toBe("Hello");
	expect(sent).toEqual([]);
	expect(frames.pending).toHaveLength(1);
	frames.frame();
	expect(sent).toEqual([
		[
			{ op: "append", path: ["text"], text: "Hello" },
			{ op: "append", path: ["notes"], text: "ab" },
		],
	]);
	// Nothing held: the next frame sends nothing.
	frames.frame();
	expect(sent).toHaveLength(1);
});

test("any other update sends what is held first, so subscribers see the updates in order", () => {
	const frames = manualFrames();
	const live = new LiveState(initial(), frames);
	const sent: unknown[] = [];
	live.subscribe((json) => sent.push(JSON.parse(json)));
	live.update([{ op: "append", path: ["text"], text: "Hi" }]);
	live.update([{ op: "push", path: ["items"], items: [1] }]);
	expect(sent).toEqual([[{ op: "append", path: ["text"], text: "Hi" }], [{ op: "push", path: ["items"], items: [1] }]]);
	frames.frame();
	expect(sent).toHaveLength(2);
});

test("a new subscriber's snapshot includes held text, which earlier subscribers get before it subscribes", () => {
	const frames = manualFrames();
	const live = new LiveState(initial(), frames);
	const first: unknown[] = [];
	const second: unknown[] = [];
	live.subscribe((json) => first.push(JSON.parse(json)));
	live.update([{ op: "append", path: ["text"], text: "Hi" }]);
	const { state } = live.subscribe((json) => second.push(JSON.parse(json)));
	expect(state.text).toBe("Hi");
	expect(first).toEqual([[{ op: "append", path: ["text"], text: "Hi" }]]);
	live.update([{ op: "append", path: ["text"], text: "!" }]);
	frames.frame();
	expect(first.at(-1)).toEqual([{ op: "append", path: ["text"], text: "!" }]);
	expect(second).toEqual([[{ op: "append", path: ["text"], text: "!" }]]);
});

test("with nobody subscribed nothing is held", () => {
	const frames = manualFrames();
	const live = new LiveState(initial(), frames);
	live.update([{ op: "append", path: ["text"], text: "Hi" }]);
	expect(frames.pending).toHaveLength(0);
	const sent: string[] = [];
	const { state } = live.subscribe((json) => sent.push(json));
	expect(state.text).toBe("Hi");
	frames.frame();
	expect(sent).toEqual([]);
});
