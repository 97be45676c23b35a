import { type } from "../../protocol/ark.ts";
import { ConversationId, SessionId } from "../../protocol/common.ts";
import { defineContract, method } from "../../protocol/contract.ts";
import { lazy } from "../../protocol/lazy.ts";

export { MAIN_CONVERSATION } from "../../protocol/common.ts";

export const SubagentStatus = lazy(() => type("'running' | 'done' | 'failed' | 'aborted'"));
export type SubagentStatus = typeof SubagentStatus.infer;

/** One conversation of the session: the main one (no parent, no status) or a subagent's. */
export const ConversationItem = lazy(() =>
	type({
		id: "string",
		/** The conversation whose agent started it; null for the main conversation. */
		parent: "string | null",
		/** The main conversation's: the session's title; a subagent's: its task, shortened. */
		title: "string",
		/** `provider/id` a subagent answers with; null for the main conversation. */
		model: "string | null",
		status: SubagentStatus.or("null"),
		archived: "boolean",
		createdAt: "number",
		endedAt: "number | null",
	}),
);
export type ConversationItem = typeof ConversationItem.infer;

export const ConversationsState = lazy(() => type({ conversations: ConversationItem.array() }));
export type ConversationsState = typeof ConversationsState.infer;

export const ArchiveArgs = lazy(() => type({ id: ConversationId }));

const participant = { state: ConversationsState, methods: ["archive", "restore"] as const };

/**
 * The conversations of one session: the main one and its subagents, threaded by parent. Everyone
 * who may see the session sees them; participants archive and restore subagents (the main one stays).
 */
export const conversationsContract = defineContract({
	name: "conversations",
	version: 1,
	input: lazy(() => type({ session: SessionId })),
	methods: {
		archive: method(ArchiveArgs, type("null")),
		restore: method(ArchiveArgs, type("null")),
	},
	variants: {
		deviceOwner: participant,
		owner: participant,
		full: participant,
		view: { state: ConversationsState, methods: [] as const },
	},
});

/** What the subagent tool's result carries for its card (`details`); read with own-key lookups. */
export interface SubagentDetails {
	readonly conversation: string;
	readonly title: string;
	readonly model: string;
	readonly status: SubagentStatus;
	readonly trace: readonly string[];
}

export const SUBAGENT_TOOL = "subagent";

/**
 * What a running subagent's card shows, as the tool's partial output (the only thing a running tool streams):
 * its conversation, its model and its latest activity, one per line.
 */
export function progressText(conversation: string, model: string, activity: string): string {
	return `${conversation}\n${model}\n${activity.replace(/\n/g, " ")}`;
}

export function readProgress(output: string): { conversation: string; model: string; activity: string } | null {
	const [conversation, model, ...rest] = output.split("\n");
	if (!conversation || model === undefined || !/^[a-z0-9][a-z0-9._-]{0,63}$/.test(conversation)) return null;
	return { conversation, model, activity: rest.join(" ") };
}
