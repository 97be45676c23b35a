import type { AssistantMessage, ImageContent, TextContent } from "@earendil-works/pi-ai";
import type { AssistantPart, Author, ChatEntry, ToolResult, Usage } from "./contract.ts";
import { entryImages, imageFacts } from "./entry-images.ts";
import { damagedText, readStored } from "./stored-data.ts";

/** What the chat plugin stores per entry kind (the `data` column); assistant entries keep pi-ai's full message. */
export type StoredData =
	/** `context`: what plugins had the model read before the text; `lead`: their line above it in the transcript. */
	| { kind: "user"; text: string; images?: ImageContent[]; context?: string; lead?: string }
	/** A plugin's entry (its kind is `<plugin>.<name>`): shown by its renderer, never read by the model. */
	| { kind: `${string}.${string}`; data: Record<string, unknown> }
	/** `retried`: a failed attempt that was retried; shown, but never part of what the model reads. */
	| { kind: "assistant"; message: AssistantMessage; retried?: boolean }
	| {
			kind: "tool";
			callId: string;
			name: string;
			args: Record<string, unknown>;
			result: { content: (TextContent | ImageContent)[]; details: unknown; isError: boolean };
			durationMs: number | null;
	  }
	| { kind: "error"; message: string }
	| { kind: "interrupted"; runId?: string }
	/** Entries from `firstKeptSeq` on stay in the model's context after the summary; older ones are summarized. */
	| { kind: "compaction"; summary: string; tokensBefore: number; firstKeptSeq: number }
	| { kind: "reset"; handoff: string | null }
	| {
			kind: "shell";
			id: string;
			command: string;
			output: string;
			exitCode: number | null;
			cancelled: boolean;
			truncated: boolean;
			includeInContext: boolean;
	  };

export interface StoredRow {
	readonly seq: number;
	readonly at: number;
	readonly kind: string;
	readonly data: unknown;
	readonly author: unknown;
}

export const INTERRUPTED_TEXT = "The server stopped while this run was in progress; it was interrupted.";

function usageOf(message: AssistantMessage): Usage | null {
	const u = message.usage;
	if (!u) return null;
	return {
		input: u.input,
		output: u.output,
		cacheRead: u.cacheRead,
		cacheWrite: u.cacheWrite,
		cost: u.cost?.total ?? 0,
	};
}

export function assistantParts(message: Pick<AssistantMessage, "content">): AssistantPart[] {
	const parts: AssistantPart[] = [];
	for (const block of message.content) {
		if (block.type === "text") parts.push({ type: "text", text: block.text });
		else if (block.type === "thinking")
			parts.push({ type: "thinking", text: block.thinking, redacted: block.redacted === true });
	}
	return parts;
}

function stopReason(message: AssistantMessage): "stop" | "length" | "toolUse" | "error" | "aborted" {
	switch (message.stopReason) {
		case "length":
		case "toolUse":
		case "error":
		case "aborted":
			return message.stopReason;
		default:
			return "stop";
	}
}

export function textOf(content: readonly (TextContent | ImageContent)[]): string {
	return content
		.filter((c): c is TextContent => c.type === "text")
		.map((c) => c.text)
		.join("\n");
}

function plainDetails(details: unknown): Record<string, unknown> | null {
	if (typeof details !== "object" || details === null || Array.isArray(details)) return null;
	return details as Record<string, unknown>;
}

export type PluginData = Extract<StoredData, { data: Record<string, unknown> }>;

export function isPluginData(data: StoredData): data is PluginData {
	return data.kind.includes(".");
}

const UNKNOWN_AUTHOR: Author = { id: "unknown", name: "unknown", role: "view" };

/** Turns a stored row into what clients see. Unknown or damaged rows become an error entry, never a crash. */
export function toView(row: StoredRow): ChatEntry {
	const base = { seq: row.seq, at: row.at };
	const data = readStored(row);
	if (!data) return { ...base, kind: "error", message: damagedText(row.seq) };
	try {
		if (isPluginData(data)) {
			return {
				...base,
				kind: "plugin",
				type: data.kind,
				author: (row.author as Author | null) ?? null,
				data: data.data,
			};
		}
		switch (data.kind) {
			case "user": {
				const images = entryImages(data);
				return {
					...base,
					kind: "user",
					text: data.text,
					author: (row.author as Author | null) ?? UNKNOWN_AUTHOR,
					images: data.images?.length ?? 0,
					...(images.length ? { imageFacts: imageFacts(images) } : {}),
					...(typeof data.lead === "string" ? { lead: data.lead.slice(0, 1024) } : {}),
				};
			}
			case "assistant": {
				const m = data.message;
				return {
					...base,
					kind: "assistant",
					parts: assistantParts(m),
					toolCalls: m.content.flatMap((c) => (c.type === "toolCall" ? [c.id] : [])),
					stopReason: stopReason(m),
					...(m.errorMessage ? { error: m.errorMessage } : {}),
					provider: typeof m.provider === "string" ? m.provider : "",
					model: typeof m.model === "string" ? m.model : "",
					usage: usageOf(m),
				};
			}
			case "tool": {
				const images = entryImages(data);
				const result: ToolResult = {
					text: textOf(data.result.content),
					isError: data.result.isError,
					details: plainDetails(data.result.details),
					...(images.length ? { images: imageFacts(images) } : {}),
				};
				return {
					...base,
					kind: "tool",
					callId: data.callId,
					name: data.name,
					args: data.args,
					result,
					durationMs: data.durationMs,
				};
			}
			case "error":
				return { ...base, kind: "error", message: data.message };
			case "interrupted":
				return { ...base, kind: "interrupted", message: INTERRUPTED_TEXT };
			case "compaction":
				return {
					...base,
					kind: "compaction",
					summary: data.summary,
					tokensBefore: data.tokensBefore,
					firstKeptSeq: typeof data.firstKeptSeq === "number" ? data.firstKeptSeq : base.seq,
				};
			case "reset":
				return { ...base, kind: "reset", handoff: data.handoff };
			case "shell":
				return {
					...base,
					kind: "shell",
					id: data.id,
					command: data.command,
					output: data.output,
					exitCode: data.exitCode,
					cancelled: data.cancelled,
					truncated: data.truncated,
					includeInContext: data.includeInContext,
					author: (row.author as Author | null) ?? UNKNOWN_AUTHOR,
				};
		}
	} catch {
		// Fall through to the damaged-entry notice.
	}
	return { ...base, kind: "error", message: damagedText(row.seq) };
}

/** Picks the newest entries that fit `budget` bytes (at least one), so the first window stays small. */
export function fitWindow(entries: readonly ChatEntry[], budget: number): { entries: ChatEntry[]; trimmed: boolean } {
	let bytes = 0;
	let start = entries.length;
	while (start > 0) {
		const size = JSON.stringify(entries[start - 1]).length;
		if (bytes + size > budget && start < entries.length) break;
		bytes += size;
		start--;
	}
	return { entries: entries.slice(start), trimmed: start > 0 };
}
