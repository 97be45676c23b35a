/**
 * The conversation on the chat screen: the open session's main one, or one of its subagents' that a person
 * navigated to. Switching sessions or conversations keeps the one left's draft and reading position (the reload
 * snapshot carries drafts per session and conversation) and gives the new one its own. Other plugins reach
 * the open conversation through the `conversation` service.
 */

import { failureText } from "../../../guest/layout.ts";
import type { GuestContext } from "../../../guest/plugin.ts";
import type { SessionEvents } from "../../../guest/session.ts";
import type { ReadingAnchor, ReloadSnapshot } from "../../../guest/snapshot.ts";
import { MAIN_CONVERSATION } from "../../../protocol/common.ts";
import type { ObjectRef } from "../../../protocol/object-client.ts";
import { type ChatEntry, chatContract } from "../contract.ts";
import type { ChatActions, SendExtra } from "./actions.ts";
import { GoneDirectoryNotice, goneDirectoryOf } from "./gone-directory.ts";
import type { ChatScreen } from "./screen.ts";

/** What other plugins may do with the open conversation: the chat's `conversation` service. */
export interface ConversationService {
	/** The open conversation's object; undefined until a session opens. */
	readonly ref: ObjectRef<typeof chatContract> | undefined;
	/** Its entries the screen has: the window and the older pages loaded. */
	entries(): readonly ChatEntry[];
	/** The directory the server says is gone, or null. */
	goneDirectory(): string | null;
	/** Forks another session's main conversation (pi's `--fork`): the new session's id. */
	forkSession(session: string, args: { cwd?: string }): Promise<string>;
	/** The conversation on the screen: "main", or a subagent's. */
	readonly current: string;
	/**
	 * Shows another conversation of the open session; `label` names it in the footer's crumb (a subagent's
	 * title). Each conversation keeps its draft and reading position.
	 */
	navigate(conversation: string, label?: string): void;
	/** Another conversation is on the screen (the session's main one when a session opens). */
	onNavigate(listener: (conversation: string) => void): () => void;
	/**
	 * Adds fields to each message sent from the editor, for the plugin's server part (chat mode's reply). The
	 * provider is asked once per message, as it is sent; undefined adds nothing.
	 */
	addSendExtra(provider: () => SendExtra | undefined): () => void;
	/** The transcript is scrolled up, away from its newest lines. */
	scrolledAway(): boolean;
	/** The transcript came back to its newest lines, or left them. */
	onScroll(listener: () => void): () => void;
}

declare module "../../../guest/services.ts" {
	interface GuestServices {
		conversation: ConversationService;
	}
}

const draftKey = (session: string, conversation: string = MAIN_CONVERSATION) => `${session}:${conversation}`;

export class OpenConversation {
	readonly #ctx: GuestContext;
	readonly #screen: ChatScreen;
	readonly #actions: ChatActions;
	readonly #changed: () => void;
	/** Drafts of the sessions this run has left, by `session:conversation`. */
	readonly #drafts: Record<string, string>;
	/** Where the person was reading in the conversations they left, by `session:conversation`. */
	readonly #anchors = new Map<string, ReadingAnchor>();
	readonly #navigated = new Set<(conversation: string) => void>();
	#ref: ObjectRef<typeof chatContract> | undefined;
	#conversation: string = MAIN_CONVERSATION;
	readonly #extras = new Set<() => SendExtra | undefined>();

	/** What plugins add to the message being sent now. */
	sendExtra(): SendExtra | undefined {
		let extra: SendExtra | undefined;
		for (const provider of this.#extras) {
			const more = provider();
			if (more) extra = { ...extra, ...more };
		}
		return extra;
	}

	/** `changed`: the conversation's state changed (the terminal's progress follows it). */
	constructor(ctx: GuestContext, screen: ChatScreen, actions: ChatActions, changed: () => void) {
		this.#ctx = ctx;
		this.#screen = screen;
		this.#actions = actions;
		this.#changed = changed;
		this.#drafts = { ...ctx.snapshot.restored?.drafts };
	}

	get ref(): ObjectRef<typeof chatContract> | undefined {
		return this.#ref;
	}

	service(): ConversationService {
		const open = this;
		const ctx = this.#ctx;
		return {
			get ref() {
				return open.ref;
			},
			entries: () => this.#screen.entries,
			goneDirectory: () => goneDirectoryOf(this.#ref?.state),
			async forkSession(session, args) {
				const chat = ctx.objects.open(chatContract, { session, conversation: MAIN_CONVERSATION });
				try {
					await chat.ready;
					return (await chat.call("fork", args.cwd ? { cwd: args.cwd } : {})).session;
				} finally {
					chat.close();
				}
			},
			get current() {
				return open.#conversation;
			},
			navigate: (conversation, label) => this.navigate(conversation, label),
			onNavigate: (listener) => {
				this.#navigated.add(listener);
				return () => this.#navigated.delete(listener);
			},
			addSendExtra: (provider) => {
				this.#extras.add(provider);
				return () => this.#extras.delete(provider);
			},
			scrolledAway: () => this.#screen.scrolledAway(),
			onScroll: (listener) => this.#screen.onScroll(listener),
		};
	}

	/** Another conversation of the open session on the screen, with its own draft and reading position. */
	navigate(conversation: string, label?: string): void {
		const session = this.#ctx.session.id;
		const screen = this.#screen;
		if (!session) return;
		screen.setConversationLabel(conversation === MAIN_CONVERSATION ? undefined : label);
		if (conversation === this.#conversation) return;
		this.#leave(session);
		this.#conversation = conversation;
		const key = draftKey(session, conversation);
		screen.setEditorText(this.#drafts[key] ?? "");
		this.#open(session, this.#anchors.get(key));
		for (const listener of [...this.#navigated]) listener(conversation);
	}

	/** The conversation on the screen is left: its draft and reading position are kept, its object closed. */
	#leave(session: string): void {
		const screen = this.#screen;
		const key = draftKey(session, this.#conversation);
		this.#drafts[key] = screen.editorText();
		const anchor = screen.readingPosition();
		if (anchor) this.#anchors.set(key, anchor);
		else this.#anchors.delete(key);
		this.#ref?.close();
		this.#ref = undefined;
		screen.reset();
	}

	/** A session opens on the screen: its conversation's object, and the draft it had. */
	opened({ id, previous, draft, anchor }: SessionEvents["opened"]): void {
		const ctx = this.#ctx;
		const screen = this.#screen;
		const wasElsewhere = this.#conversation !== MAIN_CONVERSATION;
		if (previous && previous !== id) {
			this.#leave(previous);
			screen.setEditorText(this.#drafts[draftKey(id)] ?? "");
		} else if (wasElsewhere) {
			this.#leave(id);
			screen.setEditorText(this.#drafts[draftKey(id)] ?? "");
		}
		this.#conversation = MAIN_CONVERSATION;
		screen.setConversationLabel(undefined);
		this.#open(id, anchor);
		if (draft !== undefined) {
			screen.setEditorText(draft);
			ctx.ui.requestRender();
		}
		if (wasElsewhere) for (const listener of [...this.#navigated]) listener(MAIN_CONVERSATION);
	}

	#open(session: string, anchor: ReadingAnchor | undefined): void {
		const ctx = this.#ctx;
		const screen = this.#screen;
		const chat = ctx.objects.open(chatContract, { session, conversation: this.#conversation });
		this.#ref = chat;
		let pending = anchor;
		let first = true;
		const gone = new GoneDirectoryNotice();
		chat.onChange((state) => {
			if (this.#ref !== chat) return;
			// The conversation as it is (its entries, the footer's model) is what the person waits for.
			if (first) ctx.ui.showNow();
			first = false;
			this.#actions.takeReturned(chat, state);
			screen.setChat(state);
			const warning = gone.next(goneDirectoryOf(state), ctx.session.role, ctx.start.local?.cwd);
			if (warning) screen.notice(warning, "warning");
			this.#changed();
			if (pending && screen.restorePosition(pending)) pending = undefined;
		});
		chat.onStatus((status) => {
			if (this.#ref === chat && status.kind === "refused") screen.notice(failureText(status.message), "error");
		});
	}

	/** The draft, every session's draft, and where the person is reading. */
	snapshot(): Pick<ReloadSnapshot, "draft" | "drafts" | "anchor"> {
		const text = this.#screen.editorText();
		const drafts = { ...this.#drafts };
		const session = this.#ctx.session.id;
		if (session) drafts[draftKey(session, this.#conversation)] = text;
		// A reload opens the session's main conversation: its draft, and where the person read in it.
		if (this.#conversation !== MAIN_CONVERSATION) {
			const main = session ? this.#anchors.get(draftKey(session)) : undefined;
			return { draft: (session && drafts[draftKey(session)]) || "", drafts, ...(main ? { anchor: main } : {}) };
		}
		const anchor = this.#screen.readingPosition();
		return { draft: text, drafts, ...(anchor ? { anchor } : {}) };
	}

	dispose(): void {
		this.#ref?.close();
	}
}
