/**
 * How chat mode's entries look in the transcript: a chat message (its author, the quote it replies to, a
 * mention of the person reading highlighted) and the line that says chat mode was switched. Everything here
 * came from the server and other people: it is read with own-key lookups and shown through `visibleText`.
 */
import { type Component, Spacer, Text, truncateToWidth } from "@earendil-works/pi-tui";
import type { CheckedEntry } from "../../guest/registries.ts";
import { authorLabel } from "../../protocol/author-label.ts";
import type { Author } from "../../protocol/common.ts";
import { own } from "../../protocol/own-keys.ts";
import { visibleText } from "../../ui/text.ts";
import type { ThemeRef } from "../../ui/theme/theme-ref.ts";
import { ThemedItem } from "../../ui/transcript/themed.ts";
import { UserMessage } from "../../ui/transcript/user-message.ts";
import type { MessageData } from "./contract.ts";
import { mentions, readAuthor, replyLine, styleMentions } from "./display.ts";

/** What a chat message entry says, or null when it is not one (or not readable). */
export interface ChatMessageView {
	readonly seq: number;
	readonly author: Author | null;
	readonly text: string;
	readonly quote: { readonly author: string; readonly line: string } | null;
}

/** A chat message entry whose data its schema accepted, as the transcript and the mentions read it. */
export function chatMessageView({ entry, data }: CheckedEntry<MessageData>): ChatMessageView {
	return {
		seq: entry.seq,
		author: readAuthor(own(entry, "author")),
		text: data.text,
		quote: data.quote ? { author: data.quote.author, line: data.quote.line } : null,
	};
}

/** Who is reading: their id (their own messages need no name) and the name others mention them by. */
export interface Reader {
	readonly id: string | undefined;
	readonly name: string | undefined;
}

export interface ChatMessageData {
	readonly message: ChatMessageView;
	readonly reader: Reader;
}

/** Whether a chat message mentions the person reading it (never their own). */
export function mentionsReader(message: ChatMessageView, reader: Reader): boolean {
	if (!reader.name || message.author?.id === reader.id) return false;
	return mentions(message.text, reader.name);
}

/** A chat message: a blank line, the quote it replies to, then `author: text`; a mention of the reader stands out. */
export class ChatMessageItem extends ThemedItem<ChatMessageData> {
	protected build(): void {
		const t = this.theme.current;
		const { message, reader } = this.data;
		this.addChild(new Spacer(1));
		if (message.quote) {
			const line = visibleText(replyLine(message.quote.author, message.quote.line), false);
			this.addChild({ invalidate() {}, render: (width) => [truncateToWidth(` ${t.fg("dim", line)}`, width)] });
		}
		const mine = message.author !== null && message.author.id === reader.id;
		const who = mine ? "you" : authorLabel(message.author);
		const mentioned = mentionsReader(message, reader);
		let text = visibleText(message.text);
		if (mentioned && reader.name) text = styleMentions(text, reader.name, (found) => t.bold(t.fg("warning", found)));
		const name = t.bold(t.fg(mentioned ? "warning" : "accent", visibleText(who, false)));
		const marker = mentioned ? `${t.fg("warning", "▍")}` : "";
		this.addChild(new Text(`${marker}${name} ${t.fg("muted", "·")} ${text}`, 1, 0));
	}
}

/**
 * A message to the agent that names the reader, drawn as the transcript draws others' messages with the mention
 * in bold; undefined for any other (the transcript draws it itself).
 */
export function mentionedUserMessage(entry: unknown, reader: Reader, theme: ThemeRef): Component | undefined {
	if (own(entry, "kind") !== "user") return undefined;
	const text = own(entry, "text");
	const seq = own(entry, "seq");
	const lead = own(entry, "lead");
	if (typeof text !== "string" || typeof seq !== "number") return undefined;
	const message = { seq, author: readAuthor(own(entry, "author")), text, quote: null };
	if (!reader.name || !mentionsReader(message, reader)) return undefined;
	const drawn = new UserMessage(theme, {
		text,
		author: authorLabel(message.author),
		...(typeof lead === "string" && lead ? { lead } : {}),
	});
	const name = reader.name;
	drawn.transform = (markdown) => styleMentions(markdown, name, (found) => `**${found}**`);
	return drawn;
}

/** The transcript's line for a switch: "Chat mode on (owner) · …". */
export function switchText(on: boolean, author: Author | null): string {
	const who = authorLabel(author);
	return on
		? `Chat mode on (${who}): messages are chat; mention @pi to ask the agent`
		: `Chat mode off (${who}): every message goes to the agent`;
}
