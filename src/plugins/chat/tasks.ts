/**
 * A task one conversation's agent gives another (a subagent's): what it looks like while it runs (one line of
 * activity) and what it gives back when it ends (the final answer and a short trace of what was done).
 */
import type { Author } from "../../protocol/common.ts";
import type { StoredEntry } from "../../server/plugin.ts";
import { AGENT_AUTHOR_ID, type ChatState } from "./contract.ts";
import { readStored } from "./stored-data.ts";

/** Stamped on the message that gives a subagent its task: the agent wrote it, no person did. */
export const AGENT_AUTHOR: Author = Object.freeze({ id: AGENT_AUTHOR_ID, name: "agent", role: "owner" });

export interface TaskResult {
	readonly outcome: "done" | "aborted" | "error";
	/** The text of the agent's last answer ("" when it gave none). */
	readonly answer: string;
	/** What it did, one short line per tool call, at most TRACE_LINES of them. */
	readonly trace: readonly string[];
}

const TRACE_LINES = 20;
const LINE = 100;

function short(text: string): string {
	const line = text.replace(/\s+/g, " ").trim();
	return line.length > LINE ? `${line.slice(0, LINE - 1)}…` : line;
}

/** A tool call in a few words: its name and its main argument. */
export function toolLine(name: string, args: Readonly<Record<string, unknown>>): string {
	const main = args.command ?? args.path ?? args.file_path ?? args.task ?? args.pattern;
	return short(typeof main === "string" ? `${name} ${main}` : name);
}

/** One line of what the conversation is doing now, from its replicated state (empty when idle). */
export function activityLine(state: ChatState): string {
	const live = state.live;
	if (state.compacting) return "compacting the context";
	if (!live) return "";
	const tool = live.tools.at(-1);
	if (tool) return `→ ${toolLine(tool.name, tool.args)}`;
	if (live.retry) return `retrying (attempt ${live.retry.attempt} of ${live.retry.maxAttempts})`;
	const parts = live.message?.parts ?? [];
	const part = parts.at(-1);
	if (!part) return "working";
	if (part.type === "thinking") return "thinking";
	// The end of what it is writing: the newest words.
	const tail = part.text.trimEnd().split("\n").at(-1)?.replace(/\s+/g, " ").trim() ?? "";
	if (!tail) return "writing";
	return tail.length > LINE ? `…${tail.slice(tail.length - LINE + 1)}` : tail;
}

/** The answer and the trace from the entries the task produced (its own message first). */
export function taskResult(outcome: TaskResult["outcome"], entries: readonly StoredEntry[]): TaskResult {
	const trace: string[] = [];
	let answer = "";
	let tools = 0;
	for (const entry of entries) {
		const data = readStored(entry);
		if (!data) continue;
		if (data.kind === "tool") {
			tools++;
			if (trace.length < TRACE_LINES) trace.push(toolLine(data.name, data.args));
		} else if (data.kind === "assistant" && !data.retried) {
			const text = data.message.content
				.flatMap((c) => (c.type === "text" ? [c.text] : []))
				.join("")
				.trim();
			if (text) answer = text;
		} else if (data.kind === "error") answer = answer || `Error: ${data.message}`;
	}
	if (tools > trace.length) trace.push(`… and ${tools - trace.length} more tool calls`);
	return { outcome, answer, trace };
}
