/**
 * Turns the chat object's state into the transcript's display items: one pure function, keyed so that an
 * unchanged item keeps its component and only changed items rebuild.
 */

import { failureText } from "../../../guest/layout.ts";
import { authorLabel } from "../../../protocol/author-label.ts";
import type { ImageItem } from "../../../ui/inline-image.ts";
import { sameData } from "../../../ui/same-data.ts";
import type { ToolCardData } from "../../../ui/tools/tool-card.ts";
import type { AssistantMessageData } from "../../../ui/transcript/assistant-message.ts";
import type { CompactionSummaryData } from "../../../ui/transcript/compaction-summary.ts";
import type { HelpBlockData } from "../../../ui/transcript/help-block.ts";
import type { ResetMarkerData } from "../../../ui/transcript/reset-marker.ts";
import type { ShellBlockData } from "../../../ui/transcript/shell-block.ts";
import type { StatusLineData } from "../../../ui/transcript/status-line.ts";
import type { UserMessageData } from "../../../ui/transcript/user-message.ts";
import {
	type ChatEntry,
	type ChatState,
	type ImageFact,
	type LiveTool,
	MAX_ENTRY_IMAGES,
	type ToolResult,
} from "../contract.ts";

interface ItemBase {
	readonly key: string;
	/** Shows a committed entry (one per entry); live items and local notices do not. */
	readonly committed?: boolean;
	/** The committed entry's seq. */
	readonly seq?: number;
	/** The committed entry itself and the view it was shown with: the same pair shows the same item. */
	readonly source?: { readonly entry: ChatEntry; readonly view: string };
}

export type DisplayItem =
	| (ItemBase & { readonly kind: "user"; readonly data: UserMessageData })
	| (ItemBase & { readonly kind: "assistant"; readonly data: AssistantMessageData })
	| (ItemBase & { readonly kind: "tool"; readonly data: ToolCardData })
	| (ItemBase & { readonly kind: "status"; readonly data: StatusLineData })
	| (ItemBase & { readonly kind: "block"; readonly data: HelpBlockData })
	| (ItemBase & { readonly kind: "compaction"; readonly data: CompactionSummaryData })
	| (ItemBase & { readonly kind: "marker"; readonly data: ResetMarkerData })
	| (ItemBase & { readonly kind: "shell"; readonly data: ShellBlockData })
	/** A plugin's renderer draws this entry (the screen decides, from its entry renderers). */
	| (ItemBase & {
			readonly kind: "custom";
			readonly data: { readonly entry: ChatEntry; readonly version: number; readonly fallback?: DisplayItem };
	  });

export interface ViewOptions {
	readonly viewerId: string | undefined;
	readonly toolsExpanded: boolean;
	readonly hideThinking: boolean;
	readonly home: string | undefined;
	readonly now: number;
	/** The key that expands tool output (and compaction summaries), as pi names it; empty when unbound. */
	readonly expandKey?: string;
	/** The key that stops what runs, as pi names it. */
	readonly interruptKey?: string;
	/** The cells wide the launcher draws images; absent: pi's text placeholders. */
	readonly imageCells?: number;
}

/** An entry's images as its item holds them, and how wide they are drawn. */
function imagesOf(seq: number, facts: readonly ImageFact[], view: ViewOptions) {
	if (!facts.length) return {};
	const images: ImageItem[] = facts.map((fact, index) => ({ seq, index, ...fact }));
	return { images, ...(view.imageCells === undefined ? {} : { imageCells: view.imageCells }) };
}

/** A user entry's images: their facts, or (from a server that sent only the count) unknown images. */
function userImages(entry: Extract<ChatEntry, { kind: "user" }>): readonly ImageFact[] {
	return (
		entry.imageFacts ?? Array.from({ length: Math.min(entry.images, MAX_ENTRY_IMAGES) }, () => ({ mimeType: "image" }))
	);
}

/**
 * pi shows what the model still sees: after a compaction, the entries it summarized are gone from the chat and
 * its block stands after the ones it kept. The first seq still shown, or 0.
 */
export function shownFrom(entries: readonly ChatEntry[]): number {
	for (let i = entries.length - 1; i >= 0; i--) {
		const entry = entries[i]!;
		if (entry.kind === "compaction") return Math.min(entry.firstKeptSeq, entry.seq);
	}
	return 0;
}

/** What the items are made of: the entries the screen has, and what runs now. */
export type ChatView = Pick<ChatState, "live" | "shell"> & { readonly entries: readonly ChatEntry[] };

/** What the screen shows; `committed`: the entries' items when they were made for this view already. */
export function displayItems(
	state: ChatView,
	view: ViewOptions,
	committed: CommittedItems = committedItems(state.entries, view),
): DisplayItem[] {
	return [...committed.items, ...liveItems(state, committed.toolCallIds, view)];
}

/** The committed entries' items, and the tool calls they hold: the same while the entries and the view are. */
export interface CommittedItems {
	readonly items: readonly DisplayItem[];
	readonly toolCallIds: ReadonlySet<string>;
	/** What the items were made for beside the entries (the view, but the clock, which they do not read). */
	readonly shownWith: string;
}

/**
 * How a view shows committed entries: items made for one view serve another with the same key. Every option
 * but the clock counts (committed entries do not read it), an option added later included.
 */
export function shownWithKey(view: ViewOptions): string {
	const { now: _clock, ...shown } = view;
	return JSON.stringify(shown, Object.keys(shown).sort());
}

export function committedItems(entries: readonly ChatEntry[], view: ViewOptions): CommittedItems {
	const items: DisplayItem[] = [];
	const from = shownFrom(entries);
	const shownWith = shownWithKey(view);
	const toolCallIds = new Set<string>();
	for (const entry of entries) {
		if (entry.kind === "tool") toolCallIds.add(entry.callId);
		if (entry.seq < from) continue;
		items.push({ ...entryItem(entry, view), committed: true, seq: entry.seq, source: { entry, view: shownWith } });
	}
	return { items, toolCallIds, shownWith };
}

type Live = NonNullable<ChatState["live"]>;

/** The answer being written, as the transcript shows it. */
export function liveAnswerItem(
	live: Live,
	message: NonNullable<Live["message"]>,
	view: Pick<ViewOptions, "hideThinking">,
): DisplayItem {
	return {
		key: `live:${live.runId}`,
		kind: "assistant",
		data: { parts: message.parts, hideThinking: view.hideThinking },
	};
}

/**
 * Whether `next` differs from `previous` only by text appended to the parts of the answer being written (what a
 * streamed frame does): every other field is the same value, as a patch leaves what it does not touch.
 */
export function onlyAnswerGrew(previous: ChatState, next: ChatState): boolean {
	const was = previous.live;
	const now = next.live;
	if (!was?.message || !now?.message) return false;
	if (
		!sameBut(previous, next, "live") ||
		!sameBut(was, now, "message") ||
		!sameBut(was.message, now.message, "parts")
	) {
		return false;
	}
	const before = was.message.parts;
	const after = now.message.parts;
	return (
		before.length === after.length &&
		before.every((part, i) => {
			const grown = after[i]!;
			return part === grown || (sameBut(part, grown, "text") && grown.text.startsWith(part.text));
		})
	);
}

/** The same own fields holding the same values, but `key`'s (which both have). */
function sameBut<T extends object>(a: T, b: T, key: keyof T & string): boolean {
	const keys = Object.keys(a);
	if (keys.length !== Object.keys(b).length || !Object.hasOwn(b, key)) return false;
	return keys.every((k) => k === key || (Object.hasOwn(b, k) && Object.is(a[k as keyof T], b[k as keyof T])));
}

/** What runs now: the streaming answer, its tool calls, running tools and a running shell command. */
function liveItems(
	state: Pick<ChatState, "live" | "shell">,
	committedToolCalls: ReadonlySet<string>,
	view: ViewOptions,
): DisplayItem[] {
	const items: DisplayItem[] = [];
	const liveToolIds = new Set(state.live?.tools.map((t) => t.id) ?? []);
	const live = state.live;
	if (live?.message) {
		items.push(liveAnswerItem(live, live.message, view));
		for (const id of live.message.toolCalls) {
			if (committedToolCalls.has(id) || liveToolIds.has(id)) continue;
			items.push(pendingTool(id, undefined, view));
		}
	}
	for (const tool of live?.tools ?? []) items.push(pendingTool(tool.id, tool, view));
	const shell = state.shell;
	if (shell) {
		items.push({
			key: `shell:${shell.id}`,
			kind: "shell",
			data: {
				command: shell.command,
				output: shell.output,
				running: !shell.ended,
				exitCode: shell.ended?.exitCode ?? null,
				cancelled: shell.ended?.cancelled ?? false,
				includeInContext: shell.includeInContext,
				expanded: view.toolsExpanded,
				...(shell.author.id === view.viewerId || !view.viewerId ? {} : { author: authorLabel(shell.author) }),
				expandKey: view.expandKey ?? "",
				interruptKey: view.interruptKey ?? "",
			},
		});
	}
	return items;
}

function entryItem(entry: ChatEntry, view: ViewOptions): DisplayItem {
	const key = `e:${entry.seq}`;
	switch (entry.kind) {
		case "user":
			return {
				key,
				kind: "user",
				data: {
					text: entry.text,
					...(entry.author.id === view.viewerId || !view.viewerId ? {} : { author: authorLabel(entry.author) }),
					...(entry.lead ? { lead: entry.lead } : {}),
					...imagesOf(entry.seq, userImages(entry), view),
					// A `/skill:` message: its block follows the tool output's Ctrl+O (pi).
					...(entry.text.startsWith("<skill ")
						? { skill: { expanded: view.toolsExpanded, expandKey: view.expandKey ?? "" } }
						: {}),
				},
			};
		case "assistant":
			return {
				key,
				kind: "assistant",
				data: {
					parts: entry.parts,
					stopReason: entry.stopReason,
					...(entry.error ? { error: entry.error } : {}),
					hideThinking: view.hideThinking,
				},
			};
		case "tool":
			// Keyed by the call, so the live card and the committed one are the same component.
			return {
				key: `tool:${entry.callId}`,
				kind: "tool",
				data: {
					...toolData(entry.name, entry.args, entry.result, entry.durationMs, view),
					...imagesOf(entry.seq, entry.result.images ?? [], view),
				},
			};
		case "error":
			return { key, kind: "status", data: { text: failureText(entry.message), tone: "error" } };
		case "interrupted":
			return { key, kind: "status", data: { text: entry.message, tone: "warning" } };
		case "compaction":
			return {
				key,
				kind: "compaction",
				data: {
					summary: entry.summary,
					tokensBefore: entry.tokensBefore,
					expanded: view.toolsExpanded,
					expandKey: view.expandKey ?? "",
				},
			};
		case "reset":
			return { key, kind: "marker", data: { handoff: entry.handoff } };
		case "plugin":
			// A plugin's renderer draws it (or a dim line names it).
			return { key, kind: "custom", data: { entry, version: 0 } };
		case "shell":
			// Keyed by the command, so the running block and the finished one are the same component.
			return {
				key: `shell:${entry.id}`,
				kind: "shell",
				data: {
					command: entry.command,
					output: entry.output,
					running: false,
					exitCode: entry.exitCode,
					cancelled: entry.cancelled,
					includeInContext: entry.includeInContext,
					expanded: view.toolsExpanded,
					...(entry.author.id === view.viewerId || !view.viewerId ? {} : { author: authorLabel(entry.author) }),
					expandKey: view.expandKey ?? "",
					interruptKey: view.interruptKey ?? "",
				},
			};
	}
}

function toolData(
	name: string,
	args: Record<string, unknown>,
	result: ToolResult,
	durationMs: number | null,
	view: ViewOptions,
): ToolCardData {
	return {
		name,
		args,
		state: result.isError ? "error" : "success",
		output: result.text,
		details: result.details,
		elapsedMs: durationMs,
		expanded: view.toolsExpanded,
		home: view.home,
	};
}

function pendingTool(id: string, tool: LiveTool | undefined, view: ViewOptions): DisplayItem {
	return {
		key: `tool:${id}`,
		kind: "tool",
		data: {
			name: tool?.name ?? "…",
			args: tool?.args ?? {},
			state: "pending",
			output: tool?.output ?? "",
			details: null,
			elapsedMs: tool ? Math.max(0, view.now - tool.startedAt) : null,
			expanded: view.toolsExpanded,
			home: view.home,
		},
	};
}

/** Items are equal when their data is: a component is rebuilt only then. */
export function sameItem(a: DisplayItem, b: DisplayItem): boolean {
	// Committed entries do not change: the same entry shown the same way needs no comparison (a long transcript
	// is compared on every streamed token).
	if (a.source && b.source && a.source.entry === b.source.entry && a.source.view === b.source.view) return true;
	return a.kind === b.kind && sameData(a.data, b.data);
}
