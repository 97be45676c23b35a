/**
 * /compact: older entries of the model's context become one summary written by the model; the most recent
 * ones stay as they are. The request is a plain-text transcript, so tool calls need no pairing and large tool
 * outputs are cut.
 */
import type { StreamFn } from "@earendil-works/pi-agent-core";
import { type Api, type AssistantMessage, type Context, type Model, normalizeContext } from "@earendil-works/pi-ai";
import type { StoredData, StoredRow } from "./view.ts";
import { textOf } from "./view.ts";

/** Roughly this much of the latest conversation stays word for word after a compaction. */
export const KEEP_RECENT_TOKENS = 20_000;
/** "Keep nothing": a seq no entry has (stored as JSON, where Infinity would become null). */
export const KEEP_NONE = Number.MAX_SAFE_INTEGER;
/** A tool's output is cut to this many characters in the transcript the summarizer reads. */
const TOOL_TEXT_LIMIT = 2_000;

const SYSTEM_PROMPT =
	"You write context checkpoints: compact summaries of a coding session that another model will continue from. Be faithful and specific, and never invent anything.";

const INSTRUCTIONS = `Summarize the conversation above for whoever continues it. Cover:
- the goal, and the person's requests, preferences and constraints;
- decisions made, and why;
- what was done, with the exact file paths, commands, names and error messages that still matter;
- the current state, and what is left to do next.
Write short Markdown sections with bullets. Leave out pleasantries and whatever no longer matters.`;

/** Four characters a token: close enough to choose what to keep. */
export function estimateTokens(text: string): number {
	return Math.ceil(text.length / 4);
}

function cut(text: string, limit: number): string {
	return text.length > limit ? `${text.slice(0, limit)}\n[… ${text.length - limit} more characters]` : text;
}

/** One entry as the summarizer reads it; null for entries that carry nothing for the model. */
export function entryText(row: StoredRow): string | null {
	const data = row.data as StoredData | null;
	switch (data?.kind) {
		case "user":
			return `User: ${data.text}${data.images?.length ? ` [${data.images.length} image(s)]` : ""}`;
		case "assistant": {
			if (data.retried === true) return null;
			const parts: string[] = [];
			for (const block of data.message.content) {
				if (block.type === "text" && block.text.trim()) parts.push(block.text);
				else if (block.type === "toolCall") parts.push(`[calls ${block.name} ${JSON.stringify(block.arguments)}]`);
			}
			return parts.length ? `Assistant: ${parts.join("\n")}` : null;
		}
		case "tool":
			return `Tool ${data.name}${data.result.isError ? " (failed)" : ""}: ${cut(textOf(data.result.content), TOOL_TEXT_LIMIT)}`;
		default:
			return null;
	}
}

/** The estimated size of these entries, as the summarizer would read them. */
export function estimateRows(rows: readonly StoredRow[]): number {
	return rows.reduce((sum, row) => sum + estimateTokens(entryText(row) ?? ""), 0);
}

/**
 * The first entry the compacted context keeps word for word: a user message, such that what follows it is at
 * most `keepTokens`. KEEP_NONE when everything should be summarized (it all fits, or nothing fits).
 */
export function firstKeptSeq(rows: readonly StoredRow[], keepTokens = KEEP_RECENT_TOKENS): number {
	// A conversation that fits entirely is summarized entirely (an automatic compaction; /compact refuses it).
	if (estimateRows(rows) <= keepTokens) return KEEP_NONE;
	let tail = 0;
	let kept = KEEP_NONE;
	for (let i = rows.length - 1; i > 0; i--) {
		const row = rows[i]!;
		tail += estimateTokens(entryText(row) ?? "");
		if (tail > keepTokens) break;
		if ((row.data as StoredData | null)?.kind === "user") kept = row.seq;
	}
	return kept;
}

/** The summarizer's request: the earlier summary (if any) and the entries to fold into the new one. */
export function summaryRequest(lead: string | null, rows: readonly StoredRow[], instructions?: string): Context {
	const lines = rows.flatMap((row) => entryText(row) ?? []);
	const transcript = [...(lead ? [lead] : []), ...lines].join("\n\n");
	const extra = instructions?.trim() ? `\n\nAlso: ${instructions.trim()}` : "";
	return {
		systemPrompt: SYSTEM_PROMPT,
		messages: [
			{
				role: "user",
				content: `<conversation>\n${transcript}\n</conversation>\n\n${INSTRUCTIONS}${extra}`,
				timestamp: Date.now(),
			},
		],
	};
}

/** The context's size before compacting: the latest answer's usage when there is one, else an estimate. */
export function contextTokens(lead: string | null, rows: readonly StoredRow[]): number {
	for (let i = rows.length - 1; i >= 0; i--) {
		const data = rows[i]!.data as StoredData | null;
		if (data?.kind !== "assistant") continue;
		const message = data.message as AssistantMessage;
		if (message.stopReason === "error" || message.stopReason === "aborted") continue;
		const u = message.usage;
		if (u && u.input + u.output > 0) return u.input + u.cacheRead + u.cacheWrite + u.output;
	}
	return estimateTokens([lead ?? "", ...rows.map((r) => entryText(r) ?? "")].join("\n"));
}

/** Asks the model for the summary: the text, or why there is none; `aborted` when the signal ended it. */
export async function summarize(options: {
	streamFn: StreamFn;
	model: Model<Api>;
	lead: string | null;
	rows: readonly StoredRow[];
	instructions?: string;
	signal: AbortSignal;
}): Promise<{ aborted: true } | { aborted: false; summary: string } | { aborted: false; error: string }> {
	const request = normalizeContext(summaryRequest(options.lead, options.rows, options.instructions));
	const stream = await options.streamFn(options.model, request, { signal: options.signal });
	const message = await stream.result();
	if (options.signal.aborted || message.stopReason === "aborted") return { aborted: true };
	if (message.stopReason === "error") return { aborted: false, error: message.errorMessage ?? "the model refused" };
	const summary = textOf(message.content.filter((c) => c.type === "text")).trim();
	return summary ? { aborted: false, summary } : { aborted: false, error: "the model wrote no summary." };
}
