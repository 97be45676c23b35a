import type { AssistantMessage, UserMessage } from "@earendil-works/pi-ai";

/**
 * What a conversation is doing. One thing at a time: while it is not idle, a message is queued (during a run)
 * or refused, and the session shows as busy.
 */
export type Activity =
	| { readonly kind: "idle" }
	/** The agent answers. `input` started it (null: it goes on after a compaction); `lastAnswer` is its latest. */
	| {
			readonly kind: "run";
			readonly id: string;
			readonly input: UserMessage | null;
			readonly authorId: string;
			lastAnswer: AssistantMessage | null;
	  }
	/** A /compact, or pi's automatic one; `by` (or an owner) may cancel it. */
	| { readonly kind: "compaction"; readonly abort: AbortController; readonly by: string }
	/** A person's `!` command; `by` (or an owner) may cancel it. */
	| { readonly kind: "shell"; readonly abort: AbortController; readonly by: string };

export type Run = Extract<Activity, { kind: "run" }>;

export const IDLE: Activity = Object.freeze({ kind: "idle" });
