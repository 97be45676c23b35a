/**
 * What the person does to the open conversation, as calls on its chat object: send (held across a lost
 * connection, with what plugins add to it), stop, take back queued messages, compact, a fresh context, `!`
 * commands, older pages, and texts others sent back to this person's editor. The screen shows; this only asks
 * the server and puts texts where they go.
 */

import type { GuestUi } from "../../../guest/layout.ts";
import type { OpenSession } from "../../../guest/session.ts";
import { ConnectionLost, type ObjectRef } from "../../../protocol/object-client.ts";
import { isOwnerRole, isParticipantRole } from "../../../protocol/roles.ts";
import type { ChatEntry, ChatState, chatContract, QueueMode } from "../contract.ts";
import type { ShownChat } from "./shown-chat.ts";

/** Fields plugins add to a message for their server parts (chat mode's `replyTo`). */
export type SendExtra = Record<string, string | number | boolean | null>;

export interface ChatActionsContext {
	readonly ui: Pick<GuestUi, "notice" | "fail" | "editorText" | "setEditorText">;
	/** Who this is (the role decides what they may do; their id marks their own messages). */
	readonly session: Pick<OpenSession, "identity" | "role">;
	/** The conversation on the screen, whose object the calls go to. */
	readonly shown: Pick<ShownChat, "ref">;
}

export class ChatActions {
	readonly #ctx: ChatActionsContext;
	/** Returned texts already put into the editor (the ack may still be on its way). */
	readonly #acked = new Set<string>();
	/** What plugins add to each message sent (chat mode's reply), asked as it is sent. */
	readonly #extras = new Set<() => SendExtra | undefined>();

	constructor(ctx: ChatActionsContext) {
		this.#ctx = ctx;
	}

	#chat(): ObjectRef<typeof chatContract> | undefined {
		return this.#ctx.shown.ref;
	}

	#open(): ObjectRef<typeof chatContract> {
		const chat = this.#chat();
		if (!chat) throw new Error("No session is open yet.");
		return chat;
	}

	/** A plugin adds fields to each message sent from the editor; undefined from it adds nothing. */
	addSendExtra(provider: () => SendExtra | undefined): () => void {
		this.#extras.add(provider);
		return () => this.#extras.delete(provider);
	}

	/** What plugins add to the message being sent now. */
	#sendExtra(): SendExtra | undefined {
		let extra: SendExtra | undefined;
		for (const provider of this.#extras) {
			const more = provider();
			if (more) extra = { ...extra, ...more };
		}
		return extra;
	}

	/** `!cmd` is not a command: until the role is known the server decides; then the owner and full guests. */
	#mayRunShell(): void {
		const role = this.#ctx.session.role;
		if (role && !isParticipantRole(role))
			throw new Error("Only the owner and guests with full access can run commands.");
	}

	/** The same request id across reconnects: the server runs it once. A refusal goes back to the person. */
	async send(text: string, mode: QueueMode, attachments: string[]): Promise<void> {
		const chat = this.#open();
		const extra = this.#sendExtra();
		const requestId = newRequestId();
		for (;;) {
			try {
				await chat.ready;
				await chat.call("send", {
					text,
					mode,
					requestId,
					...(attachments.length ? { attachments } : {}),
					...(extra && Object.keys(extra).length ? { extra } : {}),
				});
				return;
			} catch (error) {
				if (!(error instanceof ConnectionLost)) throw error;
			}
		}
	}

	/** Older committed entries of the conversation on the screen, before `beforeSeq` (none without one). */
	async loadOlder(beforeSeq: number): Promise<{ entries: ChatEntry[]; more: boolean }> {
		const chat = this.#chat();
		if (!chat) return { entries: [], more: false };
		return chat.call("page", { beforeSeq, limit: 100 });
	}

	async stop(): Promise<void> {
		const chat = this.#chat();
		try {
			const result = await chat?.call("stop", null);
			if (result?.texts.length) this.#restore(result.texts);
			// The owner and full guests stop any run; a `!` command is its author's (or an owner's) to cancel.
			const shell = chat?.state?.shell;
			if (result && !result.stopped && shell && shell.author.id !== this.#ctx.session.identity?.id) {
				if (!isOwnerRole(this.#ctx.session.role))
					this.#ctx.ui.notice("Only the owner, or whoever ran it, can cancel this command.");
			}
		} catch (error) {
			this.#ctx.ui.fail(error);
		}
	}

	/** pi's Alt+Up: this person's queued messages back into the editor. */
	async restoreQueued(): Promise<void> {
		try {
			const result = await this.#chat()?.call("dequeueOwn", null);
			if (!result?.restored.length) return;
			this.#restore(result.restored);
			const n = result.restored.length;
			this.#ctx.ui.notice(`Restored ${n} queued message${n === 1 ? "" : "s"} to editor`);
		} catch (error) {
			this.#ctx.ui.fail(error);
		}
	}

	async compact(instructions: string): Promise<void> {
		const result = await this.#open().call("compact", instructions.trim() ? { instructions: instructions.trim() } : {});
		// pi's words for a cancelled compaction.
		if (result.aborted) this.#ctx.ui.notice("Compaction cancelled", "error");
	}

	async newContext(handoff: string): Promise<void> {
		await this.#open().call("newContext", handoff.trim() ? { handoff: handoff.trim() } : {});
	}

	/** Like send: the same request id across reconnects, so the server runs the command once. */
	async shell(command: string, includeInContext: boolean): Promise<void> {
		this.#mayRunShell();
		const chat = this.#open();
		const requestId = newRequestId();
		for (;;) {
			try {
				await chat.ready;
				await chat.call("shell", { command, includeInContext, requestId });
				return;
			} catch (error) {
				if (!(error instanceof ConnectionLost)) throw error;
			}
		}
	}

	/**
	 * Someone else's stop, an owner's dequeue or a rejected approval sent this person's queued texts back: they
	 * go into the editor (nothing typed is lost), then the server is told they arrived.
	 */
	takeReturned(chat: ObjectRef<typeof chatContract>, state: ChatState | undefined): void {
		const viewer = this.#ctx.session.identity?.id;
		if (!state || !viewer || this.#ctx.session.role === "view") return;
		for (const item of state.returned) {
			if (item.authorId !== viewer || this.#acked.has(item.id)) continue;
			this.#acked.add(item.id);
			this.#restore(item.texts);
			this.#ctx.ui.notice("Your queued message came back to the editor");
			chat.call("ackReturned", { id: item.id }).catch(() => this.#acked.delete(item.id));
		}
	}

	/** Texts taken back from the queue go into the editor before what is there, a blank line between each (pi). */
	#restore(texts: string[]): void {
		const now = this.#ctx.ui.editorText();
		this.#ctx.ui.setEditorText([...texts, now].filter((text) => text.trim()).join("\n\n"));
	}
}

/** A send's id: the same across reconnects, so the server runs it once. */
function newRequestId(): string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	let id = "";
	for (let i = 0; i < 22; i++) id += alphabet[Math.floor(Math.random() * alphabet.length)];
	return id;
}
