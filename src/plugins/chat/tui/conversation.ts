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
import { chatContract } from "../contract.ts";
import { GoneDirectoryNotice, goneDirectoryOf } from "./gone-directory.ts";
import type { ChatScreen } from "./screen.ts";
import type { ShownChat } from "./shown-chat.ts";

/** What the open conversation does on the screen: shows its state, drafts and reading positions. */
export type ConversationView = Pick<
	ChatScreen,
	| "setChat"
	| "notice"
	| "editorText"
	| "setEditorText"
	| "readingPosition"
	| "restorePosition"
	| "reset"
	| "setConversationLabel"
>;

const draftKey = (session: string, conversation: string = MAIN_CONVERSATION) => `${session}:${conversation}`;

export class OpenConversation {
	readonly #ctx: GuestContext;
	readonly #screen: ConversationView;
	readonly #shown: ShownChat;
	/** Drafts of the sessions this run has left, by `session:conversation`. */
	readonly #drafts: Record<string, string>;
	/** Where the person was reading in the conversations they left, by `session:conversation`. */
	readonly #anchors = new Map<string, ReadingAnchor>();
	readonly #navigated = new Set<(conversation: string) => void>();
	#conversation: string = MAIN_CONVERSATION;

	/** `shown`: where the conversation's object is put, and its changes told, for the chat's other parts. */
	constructor(ctx: GuestContext, screen: ConversationView, shown: ShownChat) {
		this.#ctx = ctx;
		this.#screen = screen;
		this.#shown = shown;
		this.#drafts = { ...ctx.snapshot.restored?.drafts };
	}

	/** The conversation on the screen: "main", or a subagent's. */
	get current(): string {
		return this.#conversation;
	}

	/** Another conversation is on the screen (the session's main one when a session opens). */
	onNavigate(listener: (conversation: string) => void): () => void {
		this.#navigated.add(listener);
		return () => this.#navigated.delete(listener);
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
		this.#shown.ref?.close();
		this.#shown.show(undefined);
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
		this.#shown.show(chat);
		let pending = anchor;
		let first = true;
		const gone = new GoneDirectoryNotice();
		chat.onChange((state) => {
			if (this.#shown.ref !== chat) return;
			// The conversation as it is (its entries, the footer's model) is what the person waits for.
			if (first) ctx.ui.showNow();
			first = false;
			screen.setChat(state);
			const warning = gone.next(goneDirectoryOf(state), ctx.session.role, ctx.start.local?.cwd);
			if (warning) screen.notice(warning, "warning");
			this.#shown.changed(chat, state);
			if (pending && screen.restorePosition(pending)) pending = undefined;
		});
		chat.onStatus((status) => {
			if (this.#shown.ref === chat && status.kind === "refused") screen.notice(failureText(status.message), "error");
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
		this.#shown.ref?.close();
		this.#shown.show(undefined);
	}
}
