import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { AssistantMessage, ToolResultMessage } from "@earendil-works/pi-ai";
import { readStored } from "./stored-data.ts";
import type { StoredData, StoredRow } from "./view.ts";

const INTERRUPTED_TOOL = "The tool did not finish: the run was interrupted.";

function interruptedResult(id: string, name: string, at: number): ToolResultMessage {
	return {
		role: "toolResult",
		toolCallId: id,
		toolName: name,
		content: [{ type: "text", text: INTERRUPTED_TOOL }],
		isError: true,
		timestamp: at,
	} as ToolResultMessage;
}

/** How the model reads a compaction summary at the start of its context. */
export function summaryText(summary: string): string {
	return `The conversation so far was compacted to save context. A summary of it:\n\n<summary>\n${summary}\n</summary>`;
}

/** How the model reads a command the person ran themselves (`!cmd`). */
export function shellText(data: {
	command: string;
	output: string;
	exitCode: number | null;
	cancelled: boolean;
}): string {
	const status = data.cancelled
		? "(cancelled)"
		: data.exitCode === 0
			? ""
			: `(exit code ${data.exitCode ?? "unknown"})`;
	return `I ran this command in the session's directory:\n$ ${data.command}\n${data.output || "(no output)"}${status ? `\n${status}` : ""}`;
}

/** How the model reads the handoff note of a fresh context. */
export function handoffText(handoff: string): string {
	return `This is a fresh context. A note carried over from the earlier conversation:\n\n${handoff}`;
}

/** What the model reads of a person's message: what plugins added before it (chat mode's chat), then the text. */
export function withContext(text: string, context: string | undefined): string {
	return context ? `${context}\n\n${text}` : text;
}

/** A row whose data was checked against its kind. */
export interface ReadableRow extends StoredRow {
	readonly data: StoredData;
}

/**
 * What is still in the model's context: everything after the latest /new-context, or after the latest
 * /compact its summary and the entries it kept. `lead` is the text the context starts with. Damaged rows are
 * left out (the transcript shows a notice in their place), so one bad row never stops the conversation.
 */
export function contextRows(all: readonly StoredRow[]): {
	lead: { text: string; at: number } | null;
	rows: ReadableRow[];
} {
	const rows: ReadableRow[] = [];
	for (const row of all) {
		const data = readStored(row);
		if (data) rows.push({ ...row, data });
	}
	let cut = -1;
	for (let i = rows.length - 1; i >= 0; i--) {
		const kind = rows[i]!.data.kind;
		if (kind === "compaction" || kind === "reset") {
			cut = i;
			break;
		}
	}
	if (cut < 0) return { lead: null, rows };
	const at = rows[cut]!;
	const data = at.data as Extract<StoredData, { kind: "compaction" | "reset" }>;
	const after = rows.slice(cut + 1);
	if (data.kind === "reset") {
		return { lead: data.handoff ? { text: handoffText(data.handoff), at: at.at } : null, rows: after };
	}
	// A damaged entry keeps nothing rather than everything.
	const from = typeof data.firstKeptSeq === "number" ? data.firstKeptSeq : Number.POSITIVE_INFINITY;
	const kept = rows.slice(0, cut).filter((r) => r.seq >= from);
	return { lead: { text: summaryText(data.summary), at: at.at }, rows: [...kept, ...after] };
}

/**
 * Rebuilds what the model sees from committed entries (from the latest compaction or fresh context on). A run
 * cut short (a crash, an abort mid-tool) can leave tool calls without results; providers refuse such a
 * transcript, so each gets an "interrupted" result.
 */
export function toAgentHistory(all: readonly StoredRow[]): AgentMessage[] {
	const { lead, rows } = contextRows(all);
	const messages: AgentMessage[] = lead ? [{ role: "user", content: lead.text, timestamp: lead.at }] : [];
	let open: { calls: Map<string, string>; at: number } | null = null;
	const closeOpen = () => {
		if (!open) return;
		for (const [id, name] of open.calls) messages.push(interruptedResult(id, name, open.at));
		open = null;
	};
	for (const row of rows) {
		const data = row.data;
		switch (data.kind) {
			case "user": {
				closeOpen();
				const text = withContext(data.text, data.context);
				messages.push({
					role: "user",
					content: data.images?.length ? [{ type: "text", text }, ...data.images] : text,
					timestamp: row.at,
				});
				break;
			}
			case "assistant": {
				if (data.retried === true) break;
				closeOpen();
				const message: AssistantMessage = data.message;
				if (message.stopReason === "error" && message.content.length === 0) break;
				messages.push(message);
				const calls = new Map<string, string>();
				for (const c of message.content) if (c.type === "toolCall") calls.set(c.id, c.name);
				if (calls.size > 0) open = { calls, at: row.at };
				break;
			}
			case "shell":
				if (!data.includeInContext) break;
				closeOpen();
				messages.push({ role: "user", content: shellText(data), timestamp: row.at });
				break;
			case "tool": {
				const pending = open as { calls: Map<string, string>; at: number } | null;
				if (!pending?.calls.has(data.callId)) break;
				pending.calls.delete(data.callId);
				messages.push({
					role: "toolResult",
					toolCallId: data.callId,
					toolName: data.name,
					content: data.result.content,
					details: data.result.details,
					isError: data.result.isError,
					timestamp: row.at,
				} as ToolResultMessage);
				break;
			}
		}
	}
	closeOpen();
	return messages;
}
