import { type } from "./ark.ts";
import { lazy } from "./lazy.ts";
import { Role } from "./roles.ts";
import { THINKING_LEVELS, type ThinkingLevel as ThinkingLevelName } from "./thinking-levels.ts";

/** Schemas more than one plugin's contract speaks; plugins share them here, never through each other. */

// Patterns are written as arktype strings, not RegExp literals: arktype recognizes a RegExp definition by its
// constructor's name, and the sandbox's RegExp (tamed by ses, renamed when the executable is bundled) has another.
export const SessionId = lazy(() => type("/^[0-9a-f-]{36}$/"));
export const ConversationId = lazy(() => type("/^[a-z0-9][a-z0-9._-]{0,63}$/"));

/** Names one conversation of one session: the input of per-conversation objects. */
export const ConversationInput = lazy(() => type({ session: SessionId, conversation: ConversationId }));
export type ConversationInput = typeof ConversationInput.infer;

/** The conversation every session starts with. */
export const MAIN_CONVERSATION = "main";

export { THINKING_LEVELS } from "./thinking-levels.ts";
export const ThinkingLevel = lazy(() => type.enumerated(...THINKING_LEVELS));
export type ThinkingLevel = ThinkingLevelName;

/** Stamped by the server on everything a person authors; never taken from the client. */
export const Author = lazy(() => type({ id: "string", name: "string", role: Role }));
export type Author = typeof Author.infer;

export const UsageTotals = lazy(() =>
	type({
		input: "number",
		output: "number",
		cacheRead: "number",
		cacheWrite: "number",
		cost: "number",
	}),
);
export type UsageTotals = typeof UsageTotals.infer;
