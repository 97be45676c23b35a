import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { AssistantMessage, ToolResultMessage } from "@earendil-works/pi-ai";
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

/**
 * Rebuilds what the model sees from committed entries. A run cut short (a crash, an abort mid-tool) can leave
 * tool calls without results; providers refuse such a transcript, so each gets an "interrupted" result.
 */
export function toAgentHistory(rows: readonly StoredRow[]): AgentMessage[] {
	const messages: AgentMessage[] = [];
	let open: { calls: Map<string, string>; at: number } | null = null;
	const closeOpen = () => {
		if (!open) return;
		for (const [id, name] of open.calls) messages.push(interruptedResult(id, name, open.at));
		open = null;
	};
	for (const row of rows) {
		const data = row.data as StoredData | null;
		if (!data || typeof data !== "object") continue;
		switch (data.kind) {
			case "user":
				closeOpen();
				messages.push({
					role: "user",
					content: data.images?.length ? [{ type: "text", text: data.text }, ...data.images] : data.text,
					timestamp: row.at,
				});
				break;
			case "assistant": {
				closeOpen();
				const message: AssistantMessage = data.message;
				if (message.stopReason === "error" && message.content.length === 0) break;
				messages.push(message);
				const calls = new Map<string, string>();
				for (const c of message.content) if (c.type === "toolCall") calls.set(c.id, c.name);
				if (calls.size > 0) open = { calls, at: row.at };
				break;
			}
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
