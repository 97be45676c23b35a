/**
 * What the sessions plugin uses of other plugins, named here once: the types of their guest services (each
 * plugin declares its own in `GuestServices`), never their modules.
 */
import type { GuestServices } from "../../../guest/services.ts";

/** The chat's `conversation` service: the conversation on its screen. */
export type ConversationService = GuestServices["conversation"];
export type ChatEntry = ReturnType<ConversationService["entries"]>[number];
export type ChatState = NonNullable<NonNullable<ConversationService["ref"]>["state"]>;
/** The usage plugin's numbers (tokens, cost, context). */
export type UsageState = NonNullable<ReturnType<GuestServices["usage"]["state"]>>;
/** A session's subagent conversation, as the subagents plugin lists it. */
export type SubagentEntry = NonNullable<ReturnType<GuestServices["subagentLists"]["of"]>>[number];
/** A message the search plugin found. */
export type SearchHit = Awaited<ReturnType<GuestServices["messageSearch"]>>["hits"][number];
