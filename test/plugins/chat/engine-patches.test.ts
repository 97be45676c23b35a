import { describe, expect, test } from "bun:test";
import type { AssistantMessage, ToolResultMessage } from "@earendil-works/pi-ai";
import type { Live } from "../../../src/plugins/chat/contract.ts";
import { type StreamEvent, type StreamStep, streamStep } from "../../../src/plugins/chat/engine-patches.ts";
import { applyPatch } from "../../../src/protocol/patch.ts";

const answer = { role: "assistant", content: [{ type: "text", text: "hi" }] } as unknown as AssistantMessage;

/** Feeds events to a run's live state as the conversation does; the state and what was to be stored. */
function play(events: StreamEvent[], now = 1_000) {
	let state: { live: Live } = { live: { runId: "r", startedAt: 0, message: null, tools: [], retry: null } };
	let parts: ReadonlyMap<number, number> = new Map();
	const commits: StreamStep["commit"][] = [];
	const steps: StreamStep[] = [];
	for (const event of events) {
		const step = streamStep(event, { live: state.live, parts }, now);
		steps.push(step);
		if (step.parts) parts = step.parts;
		state = applyPatch(state, step.ops);
		if (step.commit) commits.push(step.commit);
	}
	return { live: state.live, commits, steps };
}

describe("a run's events as patches", () => {
	test("text and thinking stream as appends into their parts, by content index", () => {
		const { live, steps } = play([
			{ type: "assistant_start" },
			{ type: "part_start", index: 0, kind: "thinking" },
			{ type: "part_start", index: 2, kind: "text" },
			{ type: "part_delta", index: 2, delta: "Hel" },
			{ type: "part_delta", index: 0, delta: "hmm" },
			{ type: "part_delta", index: 2, delta: "lo" },
			{ type: "part_delta", index: 2, delta: "" },
			{ type: "part_delta", index: 7, delta: "lost" },
			{ type: "tool_call", id: "call-1" },
		]);
		expect(live?.message).toEqual({
			parts: [
				{ type: "thinking", text: "hmm", redacted: false },
				{ type: "text", text: "Hello" },
			],
			toolCalls: ["call-1"],
		});
		expect(steps[3]?.ops).toEqual([{ op: "append", path: ["live", "message", "parts", 1, "text"], text: "Hel" }]);
		// An empty delta, or one for a part never started, changes nothing.
		expect(steps[6]?.ops).toEqual([]);
		expect(steps[7]?.ops).toEqual([]);
	});

	test("a finished answer is stored and leaves the live message; a retried one is stored marked as retried", () => {
		const done = play([{ type: "assistant_start" }, { type: "assistant_end", message: answer, retrying: false }]);
		expect(done.commits).toEqual([{ kind: "assistant", message: answer }]);
		expect(done.live?.message).toBeNull();
		const retried = play([{ type: "assistant_start" }, { type: "assistant_end", message: answer, retrying: true }]);
		expect(retried.commits).toEqual([{ kind: "assistant", message: answer, retried: true }]);
		expect(retried.live?.message).toBeNull();
		const failed = play([{ type: "retry_failed", attempts: 3, error: "500: overloaded" }]);
		expect(failed.commits).toEqual([{ kind: "error", message: "Retry failed after 3 attempts: 500: overloaded" }]);
	});

	test("a tool shows its output while it runs and becomes an entry when it ends", () => {
		const result = { role: "toolResult", content: [{ type: "text", text: "ok" }], isError: false } as ToolResultMessage;
		const running = play(
			[
				{ type: "tool_start", id: "t1", name: "bash", args: { command: "ls" } },
				{ type: "tool_update", id: "t1", output: "a\n" },
				{ type: "tool_update", id: "t1", output: "a\nb\n" },
				{ type: "tool_update", id: "t1", output: "a\nb\n" },
				{ type: "tool_update", id: "nope", output: "x" },
			],
			42,
		);
		expect(running.live?.tools).toEqual([
			{ id: "t1", name: "bash", args: { command: "ls" }, output: "a\nb\n", startedAt: 42 },
		]);
		expect(running.steps[2]?.ops).toEqual([{ op: "append", path: ["live", "tools", 0, "output"], text: "b\n" }]);
		expect(running.steps[3]?.ops).toEqual([]);
		const ended = play([
			{ type: "tool_start", id: "t1", name: "bash", args: {} },
			{ type: "tool_end", id: "t1", name: "bash", args: {}, result, durationMs: 12 },
		]);
		expect(ended.live?.tools).toEqual([]);
		expect(ended.commits).toEqual([
			{
				kind: "tool",
				callId: "t1",
				name: "bash",
				args: {},
				result: { content: [{ type: "text", text: "ok" }], details: null, isError: false },
				durationMs: 12,
			},
		]);
	});

	test("a retry shows its countdown until it is cleared", () => {
		const scheduled = play(
			[{ type: "retry_scheduled", attempt: 1, maxAttempts: 3, delayMs: 2_000, error: "overloaded" }],
			5_000,
		);
		expect(scheduled.live?.retry).toEqual({ attempt: 1, maxAttempts: 3, until: 7_000, error: "overloaded" });
		const cleared = play([
			{ type: "retry_scheduled", attempt: 1, maxAttempts: 3, delayMs: 10, error: "x" },
			{ type: "retry_cleared" },
		]);
		expect(cleared.live?.retry).toBeNull();
		expect(streamStep({ type: "retry_cleared" }, { live: null, parts: new Map() }, 0).ops).toEqual([]);
	});
});
