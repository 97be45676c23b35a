import { type } from "arktype";
import { Role } from "./roles.ts";

/** Schemas more than one plugin's contract speaks; plugins share them here, never through each other. */

// Patterns are written as arktype strings, not RegExp literals: arktype recognizes a RegExp definition by its
// constructor's name, and the sandbox's RegExp (tamed by ses, renamed when the executable is bundled) has another.
export const SessionId = type("/^[0-9a-f-]{36}$/");
export const ConversationId = type("/^[a-z0-9][a-z0-9._-]{0,63}$/");

/** Names one conversation of one session: the input of per-conversation objects. */
export const ConversationInput = type({ session: SessionId, conversation: ConversationId });
export type ConversationInput = typeof ConversationInput.infer;

/** The conversation every session starts with. */
export const MAIN_CONVERSATION = "main";

export const THINKING_LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh", "max"] as const;
export const ThinkingLevel = type.enumerated(...THINKING_LEVELS);
export type ThinkingLevel = (typeof THINKING_LEVELS)[number];

/** Stamped by the server on everything a person authors; never taken from the client. */
export const Author = type({ id: "string", name: "string", role: Role });
export type Author = typeof Author.infer;

export const UsageTotals = type({
	input: "number",
	output: "number",
	cacheRead: "number",
	cacheWrite: "number",
	cost: "number",
});
export type UsageTotals = typeof UsageTotals.infer;
