/**
 * How a run's events become patches of the conversation's replicated state: text and thinking stream as
 * appends into `live.message`, tools show their output while they run, and what is finished becomes an entry
 * to store (the conversation stores it, then shows it). Pure: the same event on the same state gives the same
 * patch, so it can be tested alone.
 */

import { type PatchOp, textPatch } from "../../protocol/patch.ts";
import type { EngineEvent } from "../../server/plugin.ts";
import type { ChatState } from "./contract.ts";
import type { StoredData } from "./view.ts";

/** A run's events but the delivery of a queued message, which is the queue's. */
export type StreamEvent = Exclude<EngineEvent, { type: "user_delivered" }>;

export interface StreamView {
	readonly live: ChatState["live"];
	/** contentIndex of the streaming message → its index in `live.message.parts`. */
	readonly parts: ReadonlyMap<number, number>;
}

export interface StreamStep {
	/** Applied as they are; with `commit`, applied together with the entry when it is shown. */
	readonly ops: PatchOp[];
	/** The new part map, when it changed. */
	readonly parts?: ReadonlyMap<number, number>;
	/** A finished message or tool result, to store as an entry. */
	readonly commit?: StoredData;
}

const NOTHING: StreamStep = { ops: [] };

export function streamStep(event: StreamEvent, view: StreamView, now: number): StreamStep {
	const live = view.live;
	switch (event.type) {
		case "assistant_start":
			return { ops: [{ op: "set", path: ["live", "message"], value: { parts: [], toolCalls: [] } }], parts: new Map() };
		case "part_start": {
			const parts = live?.message?.parts;
			if (!parts) return NOTHING;
			const value =
				event.kind === "text" ? { type: "text", text: "" } : { type: "thinking", text: "", redacted: false };
			return {
				ops: [{ op: "push", path: ["live", "message", "parts"], items: [value] }],
				parts: new Map(view.parts).set(event.index, parts.length),
			};
		}
		case "part_delta": {
			const index = view.parts.get(event.index);
			if (index === undefined || event.delta === "") return NOTHING;
			return { ops: [{ op: "append", path: ["live", "message", "parts", index, "text"], text: event.delta }] };
		}
		case "tool_call":
			if (!live?.message) return NOTHING;
			return { ops: [{ op: "push", path: ["live", "message", "toolCalls"], items: [event.id] }] };
		case "assistant_end": {
			const ops: PatchOp[] = [{ op: "set", path: ["live", "message"], value: null }];
			// A transient error that will be retried stays in the transcript (pi shows each attempt's error) but
			// out of what the model reads.
			const retried = event.retrying ? { retried: true } : {};
			return { ops, commit: { kind: "assistant", message: event.message, ...retried } };
		}
		case "tool_start":
			return {
				ops: [
					{
						op: "push",
						path: ["live", "tools"],
						items: [{ id: event.id, name: event.name, args: event.args, output: "", startedAt: now }],
					},
				],
			};
		case "tool_update": {
			const tools = live?.tools ?? [];
			const index = tools.findIndex((t) => t.id === event.id);
			const tool = tools[index];
			if (!tool || tool.output === event.output) return NOTHING;
			return { ops: [textPatch(["live", "tools", index, "output"], tool.output, event.output)] };
		}
		case "tool_end": {
			const index = (live?.tools ?? []).findIndex((t) => t.id === event.id);
			return {
				ops: index >= 0 ? [{ op: "splice", path: ["live", "tools"], start: index, remove: 1, items: [] }] : [],
				commit: {
					kind: "tool",
					callId: event.id,
					name: event.name,
					args: event.args,
					result: {
						content: event.result.content,
						details: event.result.details ?? null,
						isError: event.result.isError,
					},
					durationMs: event.durationMs,
				},
			};
		}
		case "retry_scheduled":
			return {
				ops: [
					{
						op: "set",
						path: ["live", "retry"],
						value: {
							attempt: event.attempt,
							maxAttempts: event.maxAttempts,
							until: now + event.delayMs,
							error: event.error,
						},
					},
				],
			};
		case "retry_cleared":
			return live ? { ops: [{ op: "set", path: ["live", "retry"], value: null }] } : NOTHING;
		case "retry_failed":
			return {
				ops: [],
				commit: { kind: "error", message: `Retry failed after ${event.attempts} attempts: ${event.error}` },
			};
	}
}
