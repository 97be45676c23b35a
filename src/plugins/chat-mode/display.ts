/**
 * Chat mode's words, shared by its server part and its TUI part: what counts as a mention, the reply quote's
 * line, and how the model reads the chat that came before a mention.
 */
import type { Author } from "../../protocol/common.ts";
import { own } from "../../protocol/own-keys.ts";
import { AGENT_MENTION } from "./contract.ts";

/** A stored or sent author, read by its own keys into a fresh object; null when it is not one. */
export function readAuthor(value: unknown): Author | null {
	const id = own(value, "id");
	const name = own(value, "name");
	const role = own(value, "role");
	if (typeof id !== "string" || typeof name !== "string" || typeof role !== "string") return null;
	return { id, name, role: role as Author["role"] };
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** How a person is mentioned: `@` and their name, spaces as `_` so the mention stays one token. */
export function mentionToken(name: string): string {
	return `@${name.trim().replace(/\s+/g, "_")}`;
}

/**
 * A mention of `name`: its token as a whole word, any case (group 1 is what comes before it, group 2 the
 * mention itself). The one pattern behind telling whether a message mentions someone and drawing it; null
 * for a name that has no token.
 */
export function mentionPattern(name: string, flags: "iu" | "giu" = "iu"): RegExp | null {
	const token = mentionToken(name);
	if (token === "@") return null;
	return new RegExp(`(^|[^\\w@])(${escapeRegExp(token)})(?![\\w-])`, flags);
}

/** Whether `text` mentions `name`. */
export function mentions(text: string, name: string): boolean {
	return mentionPattern(name)?.test(text) ?? false;
}

/** Each mention of `name` in `text` passed through `style`; the rest as it is. */
export function styleMentions(text: string, name: string, style: (mention: string) => string): string {
	const pattern = mentionPattern(name, "giu");
	return pattern ? text.replace(pattern, (_all, before: string, found: string) => `${before}${style(found)}`) : text;
}

/** Whether a message asks the agent: it mentions @pi. */
export function mentionsAgent(text: string): boolean {
	return mentions(text, AGENT_MENTION.slice(1));
}

/** A message's first line, made short for a quote. */
export function firstLine(text: string, max = 80): string {
	const line = (text.split("\n").find((l) => l.trim() !== "") ?? "").trim();
	return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** The quote above a reply, in the pending area and in the transcript. */
export function replyLine(author: string, line: string): string {
	return `↪ Replying to ${author}: ${line}`;
}

/** How the model reads the chat since its last run, before the message that mentions it. */
export function chatContext(messages: readonly { author: string; text: string }[], asker: string): string {
	const chat = messages.length
		? [
				"<chat>",
				"People in this shared session talked to each other since your last answer (you were not asked to act on these):",
				...messages.map((m) => `[${m.author}]: ${m.text}`),
				"</chat>",
			]
		: [];
	return [...chat, `The message below is from ${asker}, who mentioned you with ${AGENT_MENTION}.`].join("\n");
}
