/**
 * The per-frame cost of the object client on a large chat state, for bench/validators.ts: inside the sandbox,
 * a snapshot of `entries` committed entries, then patch frames that change its shape (so the whole state is
 * validated again) and, for comparison, text appends (which are not).
 */
import { chatContract } from "../../src/plugins/chat/contract.ts";
import { ObjectClient, type ObjectClientOptions } from "../../src/protocol/object-client.ts";

const AUTHOR = { id: "u1", name: "Ann", role: "owner" };
const TEXT = "Lorem ipsum dolor sit amet, consectetur adipiscing elit. ".repeat(30);

function entry(seq: number): Record<string, unknown> {
	const base = { seq, at: seq * 1000 };
	switch (seq % 3) {
		case 0:
			return { ...base, kind: "user", text: TEXT.slice(0, 200), author: AUTHOR, images: 0 };
		case 1:
			return {
				...base,
				kind: "assistant",
				parts: [
					{ type: "thinking", text: TEXT, redacted: false },
					{ type: "text", text: TEXT },
				],
				toolCalls: [`c${seq}`],
				stopReason: "toolUse",
				provider: "p",
				model: "m",
				usage: { input: 1, output: 2, cacheRead: 0, cacheWrite: 0, cost: 0.01 },
			};
		default:
			return {
				...base,
				kind: "tool",
				callId: `c${seq - 1}`,
				name: "bash",
				args: { command: "ls -la" },
				result: { text: TEXT, isError: false, details: { exitCode: 0, truncated: false } },
				durationMs: 12,
			};
	}
}

export function largeChatState(entries: number): Record<string, unknown> {
	return {
		entries: Array.from({ length: entries }, (_, i) => entry(i + 1)),
		older: true,
		live: {
			runId: "r1",
			startedAt: 1,
			message: { parts: [{ type: "text", text: "streaming" }], toolCalls: [] },
			tools: [{ id: "t1", name: "bash", args: { command: "make" }, output: "", startedAt: 2 }],
			retry: null,
		},
		queue: [],
		returned: [],
		model: {
			provider: "p",
			id: "m",
			name: "M",
			contextWindow: 200000,
			reasoning: true,
			thinkingLevels: ["off", "high"],
		},
		thinkingLevel: "high",
		compacting: null,
		shell: null,
	};
}

export interface FrameCost {
	entries: number;
	stateChars: number;
	/** A `set` patch: the whole state is checked again. */
	msPerShapePatch: number;
	/** A text append: only the frame is checked. */
	msPerAppend: number;
	problems: string[];
}

/** Feeds `frames` patches of each kind to an object client and measures the mean time per frame. */
export function frameCost(options: ObjectClientOptions, entries: number, frames: number): FrameCost {
	const problems: string[] = [];
	const client = new ObjectClient({ ...options, onProtocolError: (m) => problems.push(m) });
	client.attach(() => {});
	const ref = client.open(chatContract, { session: "0a0a0a0a-0000-4000-8000-000000000001", conversation: "main" });
	const state = largeChatState(entries);
	const snapshot = JSON.stringify({ t: "snapshot", h: ref.h, version: 1, role: "owner", state });
	client.receive(snapshot);
	const path = ["live", "tools", 0, "output"];
	const set = (i: number) => JSON.stringify({ t: "patch", h: ref.h, ops: [{ op: "set", path, value: `line ${i}` }] });
	const append = (i: number) => JSON.stringify({ t: "patch", h: ref.h, ops: [{ op: "append", path, text: ` ${i}` }] });
	const time = (make: (i: number) => string) => {
		for (let i = 0; i < 5; i++) client.receive(make(i));
		const t0 = performance.now();
		for (let i = 0; i < frames; i++) client.receive(make(i));
		return (performance.now() - t0) / frames;
	};
	const msPerAppend = time(append);
	const msPerShapePatch = time(set);
	if (ref.status.kind !== "live") problems.push(`not live: ${ref.status.kind}`);
	const round = (n: number) => Number(n.toFixed(3));
	return {
		entries,
		stateChars: snapshot.length,
		msPerShapePatch: round(msPerShapePatch),
		msPerAppend: round(msPerAppend),
		problems,
	};
}
