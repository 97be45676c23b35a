/**
 * Who wrote something, as everyone in a session sees it: a guest's own name marked unverified (nobody checked
 * it), the agent for a task one conversation's agent gave another, else the owner.
 */
import type { Author } from "./common.ts";
import { guestLabel } from "./share-link.ts";

/** The author id the server stamps on a task one conversation's agent gives another (a subagent's). */
export const AGENT_AUTHOR_ID = "agent";

/** `someone` for an author that could not be read. */
export function authorLabel(author: Pick<Author, "id" | "name" | "role"> | null | undefined): string {
	if (!author) return "someone";
	if (author.role === "full" || author.role === "view") return guestLabel(author.name);
	if (author.id === AGENT_AUTHOR_ID) return "agent";
	return "owner";
}
