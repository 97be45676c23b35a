/**
 * Chat mode in the UI: /chat-mode (the owner), the chip under the editor, chat messages and switches in the
 * transcript (entry renderers), `@` offering @pi and the people first, /reply with its quote in the pending
 * area, and a status line when someone mentions the reader while they are scrolled away.
 */
import type { AutocompleteItem, AutocompleteSuggestions, Component } from "@earendil-works/pi-tui";
import { truncateToWidth } from "@earendil-works/pi-tui";
import type { Completion, CompletionSource } from "../../guest/completions.ts";
import type { Followed } from "../../guest/follow.ts";
import type { GuestContext, GuestPlugin } from "../../guest/plugin.ts";
import type { TranscriptEntry } from "../../guest/registries.ts";
import { authorLabel } from "../../protocol/author-label.ts";
import { type Author, MAIN_CONVERSATION } from "../../protocol/common.ts";
import { own } from "../../protocol/own-keys.ts";
import { isOwnerRole, isParticipantRole } from "../../protocol/roles.ts";
import { MessageSelector } from "../../ui/message-selector.ts";
import { visibleText } from "../../ui/text.ts";
import { StatusLine } from "../../ui/transcript/status-line.ts";
import {
	AGENT_MENTION,
	ChatMessageEntry,
	type ChatModeState,
	chatModeContract,
	REPLY_FIELD,
	SwitchEntry,
} from "./contract.ts";
import { firstLine, mentionToken, readAuthor, replyLine } from "./display.ts";
import {
	ChatMessageItem,
	type ChatMessageView,
	chatMessageView,
	mentionedUserMessage,
	mentionsReader,
	type Reader,
	switchText,
} from "./tui-entries.ts";

/** The footer status key of the mention line. */
const MENTION_STATUS = "chat-mode.mention";

/** The token the cursor ends: text since the last blank. */
function tokenBefore(line: string, col: number): string {
	return /(\S*)$/.exec(line.slice(0, col))?.[1] ?? "";
}

/** One line under the editor (or none): drawn from what `text` says now. */
function lineComponent(text: () => string | undefined): Component {
	return {
		invalidate() {},
		render: (width) => {
			const line = text();
			return line === undefined ? [] : [truncateToWidth(line, width)];
		},
	};
}

class ChatModeUi {
	readonly #ctx: GuestContext;
	readonly #removals: (() => void)[] = [];
	readonly #offRenderers: (() => void)[] = [];
	/** The open session's chat-mode object. */
	readonly #mode: Followed<typeof chatModeContract>;
	#reply: { seq: number; author: string; line: string } | undefined;
	/** The chat object watched for mentions, and the newest entry already looked at. */
	#watched: { ref: unknown; off: () => void } | undefined;
	#seenSeq = Number.POSITIVE_INFINITY;

	constructor(ctx: GuestContext) {
		this.#ctx = ctx;
		const { ui, registries, commands, session } = ctx;
		this.#mode = ctx.objects.follow(chatModeContract, ({ id }) => (id ? { session: id } : undefined));
		this.#registerRenderers();
		this.#removals.push(
			commands.register({
				id: "p2.chatMode",
				title: "Chat mode: messages are chat, @pi asks the agent (on/off)",
				category: "p2",
				requires: { role: "owner", to: "turn chat mode on or off" },
				slash: { name: "chat-mode" },
				run: () => this.#toggle(),
			}),
			commands.register({
				id: "p2.chatMode.reply",
				title: "Reply to a message (chat mode); again cancels",
				category: "p2",
				requires: { role: "participant", to: "reply" },
				slash: { name: "reply" },
				run: () => this.#replyCommand(),
			}),
			this.#mode.onChange((state) => this.#changed(state)),
			session.on("identity", () => {
				// A mention is highlighted for the person it names: drawn again for who this is now.
				this.#registerRenderers();
			}),
			registries.completions.add(this.#completion(), { lead: true }),
			ui.slots.add(
				"widgets:above",
				lineComponent(() => this.#pendingLine()),
			),
			ui.slots.add(
				"widgets:below",
				lineComponent(() => this.#chipLine()),
			),
			() => {
				for (const off of this.#offRenderers.splice(0)) off();
			},
		);
		ctx.services.use("conversation", (conversation) => {
			this.#removals.push(
				conversation.addSendExtra(() => {
					const reply = this.#reply;
					if (!reply || !this.#state?.on) return undefined;
					this.#reply = undefined;
					ui.requestRender();
					return { [REPLY_FIELD]: reply.seq };
				}),
				conversation.onScroll(() => {
					if (!conversation.scrolledAway()) ui.slots.setStatus(MENTION_STATUS, undefined);
				}),
				conversation.onNavigate(() => {
					this.#reply = undefined;
					this.#watchChat();
				}),
			);
			this.#watchChat();
		});
	}

	dispose(): void {
		for (const remove of this.#removals.splice(0).reverse()) remove();
		this.#watched?.off();
		this.#mode.close();
	}

	/** Chat mode's state while the session's main conversation is on the screen (a subagent's has none). */
	get #state(): ChatModeState | undefined {
		const current = this.#ctx.services.get("conversation")?.current ?? MAIN_CONVERSATION;
		return current === MAIN_CONVERSATION ? this.#mode.state : undefined;
	}

	/** A chat message entry, its data checked against its schema; null for any other entry. */
	#chatMessage(entry: TranscriptEntry): ChatMessageView | null {
		const checked = this.#ctx.registries.entryRenderers.check(ChatMessageEntry, entry);
		return checked ? chatMessageView(checked) : null;
	}

	#reader(): Reader {
		const identity = this.#ctx.session.identity;
		return { id: identity?.id, name: identity?.name };
	}

	#registerRenderers(): void {
		for (const off of this.#offRenderers.splice(0)) off();
		const reader = this.#reader();
		const { entryRenderers } = this.#ctx.registries;
		this.#offRenderers.push(
			entryRenderers.registerEntry(
				ChatMessageEntry,
				(entry, theme) => new ChatMessageItem(theme, { message: chatMessageView(entry), reader }),
			),
			// A message to the agent that names the reader: their mention in bold (others' the transcript draws).
			entryRenderers.register("user", (entry, theme) => mentionedUserMessage(entry, reader, theme)),
			entryRenderers.registerEntry(SwitchEntry, ({ entry, data }, theme) => {
				const text = switchText(data.on, readAuthor(own(entry, "author")));
				return new StatusLine(theme, { text, tone: "note" });
			}),
		);
	}

	/** The session's chat-mode object changed, or the next session's took its place (a reply is for one session). */
	#changed(state: ChatModeState | undefined): void {
		if (!state?.on) this.#reply = undefined;
		this.#watchChat();
		this.#ctx.ui.requestRender();
	}

	/** Watches the conversation on the screen for new chat messages that mention the reader. */
	#watchChat(): void {
		const chat = this.#ctx.services.get("conversation")?.ref;
		if (this.#watched?.ref === chat) return;
		this.#watched?.off();
		this.#watched = undefined;
		this.#seenSeq = Number.POSITIVE_INFINITY;
		if (!chat) return;
		const look = () => {
			const entries = chat.state?.entries ?? [];
			const newest = entries.at(-1)?.seq ?? 0;
			// What was there when the conversation opened is not news.
			if (this.#seenSeq === Number.POSITIVE_INFINITY) {
				if (chat.state) this.#seenSeq = newest;
				return;
			}
			// Nothing new (a streamed token, a status change): nothing to look at.
			if (newest <= this.#seenSeq) return;
			const reader = this.#reader();
			// The new entries are at the end: walk back to the first one not seen.
			let from = entries.length;
			while (from > 0 && entries[from - 1]!.seq > this.#seenSeq) from--;
			for (const entry of entries.slice(from)) {
				// A chat message, or a message to the agent, that names the reader.
				const message =
					entry.kind === "user"
						? { seq: entry.seq, author: entry.author, text: entry.text, quote: null }
						: this.#chatMessage(entry);
				if (message && mentionsReader(message, reader) && this.#ctx.services.get("conversation")?.scrolledAway()) {
					const line = `${authorLabel(message.author)} mentioned you: ${firstLine(message.text, 60)} · scroll down to read`;
					this.#ctx.ui.slots.setStatus(MENTION_STATUS, visibleText(line, false));
				}
			}
			this.#seenSeq = Math.max(this.#seenSeq, newest);
		};
		const off = chat.onChange(look);
		this.#watched = { ref: chat, off };
		look();
	}

	async #toggle(): Promise<void> {
		const { ui } = this.#ctx;
		const ref = this.#mode.ref;
		if (!ref) return ui.notice("Open a session first.");
		try {
			await ref.ready;
			await ref.call("set", { on: !ref.state?.on });
		} catch (error) {
			ui.fail(error);
		}
	}

	#replyCommand(): void {
		const { ui } = this.#ctx;
		if (this.#reply) {
			this.#reply = undefined;
			ui.requestRender();
			return ui.notice("Reply cancelled");
		}
		if (!this.#state?.on) return ui.notice("Replies are for chat mode (/chat-mode turns it on).");
		const candidates = this.#candidates();
		if (!candidates.length) return ui.notice("No messages to reply to yet");
		ui.showSelector(
			"reply",
			new MessageSelector<ReplyCandidate>(ui.theme, {
				title: "Reply to Message",
				hint: "Select a message; your next message quotes it",
				messages: candidates,
				text: (message) => message.text,
				byline: (message) => message.author,
				choose: (message) => {
					ui.closeSelector();
					this.#reply = { seq: message.seq, author: message.author, line: firstLine(message.text) };
					ui.requestRender();
				},
				cancel: () => ui.closeSelector(),
			}),
		);
	}

	/** The people's messages on the screen: what they sent the agent and their chat messages. */
	#candidates(): ReplyCandidate[] {
		const entries = this.#ctx.services.get("conversation")?.entries() ?? [];
		const out: ReplyCandidate[] = [];
		for (const entry of entries) {
			if (entry.kind === "user") {
				out.push({ seq: entry.seq, author: authorLabel(entry.author), text: entry.text });
				continue;
			}
			const message = this.#chatMessage(entry);
			if (message) out.push({ seq: message.seq, author: authorLabel(message.author), text: message.text });
		}
		return out;
	}

	#pendingLine(): string | undefined {
		const reply = this.#reply;
		if (!reply) return undefined;
		const t = this.#ctx.ui.theme.current;
		const line = visibleText(replyLine(reply.author, reply.line), false);
		return ` ${t.fg("accent", line)} ${t.fg("dim", "· /reply cancels")}`;
	}

	/** The chip: chat mode's state while on; to the owner, how to turn it on once someone else is here. */
	#chipLine(): string | undefined {
		const state = this.#state;
		if (!state) return undefined;
		const t = this.#ctx.ui.theme.current;
		if (state.on) {
			const waiting = `${state.waiting} waiting for ${AGENT_MENTION}`;
			const hint = isParticipantRole(this.#ctx.session.role)
				? t.fg("dim", ` · Enter chats · ${AGENT_MENTION} asks the agent · /reply quotes`)
				: "";
			return ` ${t.fg("accent", "Chat")} ${t.fg("muted", `· ${waiting}`)}${hint}`;
		}
		if (!isOwnerRole(this.#ctx.session.role)) return undefined;
		const me = this.#ctx.session.identity?.id;
		// Alone, the screen stays pi's: the chip shows once someone else is here.
		if (!state.people.some((p) => p.id !== me)) return undefined;
		return ` ${t.fg("dim", "[Chat off · /chat-mode]")}`;
	}

	/** The people to mention: those here now and those who wrote, by name, without the reader. */
	#people(): Author[] {
		const me = this.#ctx.session.identity?.id;
		const byId = new Map<string, Author>();
		for (const person of this.#state?.people ?? []) byId.set(person.id, person);
		for (const entry of this.#ctx.services.get("conversation")?.entries() ?? []) {
			const author = entry.kind === "user" ? entry.author : (this.#chatMessage(entry)?.author ?? null);
			if (author && author.id !== "agent" && !byId.has(author.id)) byId.set(author.id, author);
		}
		byId.delete(me ?? "");
		return [...byId.values()];
	}

	/** `@` while chat mode is on: @pi first, then the people, then (from the files) the session's files. */
	#completion(): CompletionSource {
		return {
			triggerCharacters: ["@"],
			getSuggestions: (lines, cursorLine, cursorCol) => {
				if (!this.#state?.on || !isParticipantRole(this.#ctx.session.role)) return undefined;
				const token = tokenBefore(lines[cursorLine] ?? "", cursorCol);
				if (!token.startsWith("@")) return undefined;
				const query = token.slice(1).toLowerCase();
				const items: AutocompleteItem[] = [];
				if (AGENT_MENTION.slice(1).startsWith(query)) {
					items.push({ value: AGENT_MENTION, label: AGENT_MENTION, description: "mention pi: the agent answers" });
				}
				for (const person of this.#people()) {
					const value = mentionToken(person.name);
					if (value === "@" || !value.slice(1).toLowerCase().includes(query)) continue;
					items.push({ value, label: visibleText(value, false), description: authorLabel(person) });
				}
				const answer: AutocompleteSuggestions | null = items.length ? { items, prefix: token } : null;
				return Promise.resolve(answer);
			},
			applyCompletion: (lines, cursorLine, cursorCol, item, prefix): Completion => {
				const line = lines[cursorLine] ?? "";
				const start = cursorCol - prefix.length;
				const inserted = `${item.value} `;
				const next = [...lines];
				next[cursorLine] = line.slice(0, start) + inserted + line.slice(cursorCol);
				return { lines: next, cursorLine, cursorCol: start + inserted.length };
			},
		};
	}
}

/** A message one can reply to (/reply): its seq, who wrote it (as shown) and its text. */
interface ReplyCandidate {
	readonly seq: number;
	readonly author: string;
	readonly text: string;
}

export const chatModePlugin: GuestPlugin = {
	name: "chat-mode",
	register(ctx) {
		const ui = new ChatModeUi(ctx);
		return () => ui.dispose();
	},
};
