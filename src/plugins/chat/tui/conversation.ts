/**
 * The open session's main conversation on the chat screen. Switching sessions keeps the one left's draft
 * (the reload snapshot carries drafts per session) and gives the new one its own. Other plugins reach the
 * open conversation through the `conversation` service.
 */
import type { GuestContext } from "../../../guest/plugin.ts";
import type { SessionEvents } from "../../../guest/session.ts";
import type { ReloadSnapshot } from "../../../guest/snapshot.ts";
import { MAIN_CONVERSATION } from "../../../protocol/common.ts";
import type { ObjectRef } from "../../../protocol/object-client.ts";
import { type ChatEntry, chatContract } from "../contract.ts";
import type { ChatActions } from "./actions.ts";
import { GoneDirectoryNotice, goneDirectoryOf } from "./gone-directory.ts";
import type { ChatScreen } from "./screen.ts";

/** What other plugins may do with the open conversation. */
export interface Conversation {
	/** The open conversation's object; undefined until a session opens. */
	readonly ref: ObjectRef<typeof chatContract> | undefined;
	/** Its entries the screen has: the window and the older pages loaded. */
	entries(): readonly ChatEntry[];
	/** The directory the server says is gone, or null. */
	goneDirectory(): string | null;
	/** Forks another session's main conversation (pi's `--fork`): the new session's id. */
	forkSession(session: string, args: { cwd?: string }): Promise<string>;
}

declare module "../../../guest/services.ts" {
	interface GuestServices {
		conversation: Conversation;
	}
}

const draftKey = (session: string) => `${session}:${MAIN_CONVERSATION}`;

export class OpenConversation {
	readonly #ctx: GuestContext;
	readonly #screen: ChatScreen;
	readonly #actions: ChatActions;
	readonly #changed: () => void;
	/** Drafts of the sessions this run has left, by `session:conversation`. */
	readonly #drafts: Record<string, string>;
	#ref: ObjectRef<typeof chatContract> | undefined;

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

	service(): Conversation {
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
		};
	}

	/** A session opens on the screen: its conversation's object, and the draft it had. */
	opened({ id, previous, draft, anchor }: SessionEvents["opened"]): void {
		const ctx = this.#ctx;
		const screen = this.#screen;
		if (previous && previous !== id) {
			this.#drafts[draftKey(previous)] = screen.editorText();
			this.#ref?.close();
			screen.reset();
			screen.setEditorText(this.#drafts[draftKey(id)] ?? "");
		}
		const chat = ctx.objects.open(chatContract, { session: id, conversation: MAIN_CONVERSATION });
		this.#ref = chat;
		let pending = anchor;
		const gone = new GoneDirectoryNotice();
		chat.onChange((state) => {
			if (this.#ref !== chat) return;
			this.#actions.takeReturned(chat, state);
			screen.setChat(state);
			const warning = gone.next(goneDirectoryOf(state), ctx.session.role, ctx.start.local?.cwd);
			if (warning) screen.notice(warning, "warning");
			this.#changed();
			if (pending && screen.restorePosition(pending)) pending = undefined;
		});
		chat.onStatus((status) => {
			if (this.#ref === chat && status.kind === "refused") screen.notice(`Error: ${status.message}`, "error");
		});
		if (draft !== undefined) {
			screen.setEditorText(draft);
			ctx.ui.requestRender();
		}
	}

	/** The draft, every session's draft, and where the person is reading. */
	snapshot(): Pick<ReloadSnapshot, "draft" | "drafts" | "anchor"> {
		const draft = this.#screen.editorText();
		const anchor = this.#screen.readingPosition();
		const drafts = { ...this.#drafts };
		const session = this.#ctx.session.id;
		if (session) drafts[draftKey(session)] = draft;
		return { draft, drafts, ...(anchor ? { anchor } : {}) };
	}

	dispose(): void {
		this.#ref?.close();
	}
}
