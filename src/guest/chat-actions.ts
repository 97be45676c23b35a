/**
 * What the person does to the open conversation, as calls on its chat object: send (held across a lost
 * connection), stop, take back queued messages, compact, a fresh context, `!` commands, and texts others sent
 * back to this person's editor. The screen shows; this only asks the server and puts texts where they go.
 */
import type { ChatState, chatContract, QueueMode } from "../plugins/chat/contract.ts";
import { ConnectionLost, type ObjectRef } from "../protocol/object-client.ts";
import { isOwnerRole, isParticipantRole, type Role } from "../protocol/roles.ts";
import type { ChatScreen } from "./chat-screen.ts";

export interface ChatActionsContext {
	readonly screen: ChatScreen;
	chat(): ObjectRef<typeof chatContract> | undefined;
	role(): Role | undefined;
	/** The id the server stamps on this person's messages. */
	viewer(): string | undefined;
	requestRender(): void;
	newRequestId(): string;
}

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

export class ChatActions {
	readonly #ctx: ChatActionsContext;
	/** Returned texts already put into the editor (the ack may still be on its way). */
	readonly #acked = new Set<string>();

	constructor(ctx: ChatActionsContext) {
		this.#ctx = ctx;
	}

	#open(): ObjectRef<typeof chatContract> {
		const chat = this.#ctx.chat();
		if (!chat) throw new Error("No session is open yet.");
		return chat;
	}

	/** Until the role is known the server decides; then the owner and full guests. */
	#mayAct(what: string): void {
		const role = this.#ctx.role();
		if (role && !isParticipantRole(role)) throw new Error(`Only the owner and guests with full access can ${what}.`);
	}

	/** The same request id across reconnects: the server runs it once. A refusal goes back to the person. */
	async send(text: string, mode: QueueMode, attachments: string[]): Promise<void> {
		const chat = this.#open();
		const requestId = this.#ctx.newRequestId();
		for (;;) {
			try {
				await chat.ready;
				await chat.call("send", { text, mode, requestId, ...(attachments.length ? { attachments } : {}) });
				return;
			} catch (error) {
				if (!(error instanceof ConnectionLost)) throw error;
			}
		}
	}

	async stop(): Promise<void> {
		const chat = this.#ctx.chat();
		try {
			const result = await chat?.call("stop", null);
			if (result?.texts.length) this.#restore(result.texts);
			if (result && !result.stopped && chat?.state?.live && !isOwnerRole(this.#ctx.role())) {
				this.#ctx.screen.notice("Only the owner, or whoever started this run, can stop it.");
			}
		} catch (error) {
			this.#ctx.screen.notice(`Error: ${errorText(error)}`, "error");
		}
	}

	/** pi's Alt+Up: this person's queued messages back into the editor. */
	async restoreQueued(): Promise<void> {
		try {
			const result = await this.#ctx.chat()?.call("dequeueOwn", null);
			if (!result?.restored.length) return;
			this.#restore(result.restored);
			const n = result.restored.length;
			this.#ctx.screen.notice(`Restored ${n} queued message${n === 1 ? "" : "s"} to editor`);
		} catch (error) {
			this.#ctx.screen.notice(`Error: ${errorText(error)}`, "error");
		}
	}

	async compact(instructions: string): Promise<void> {
		this.#mayAct("compact");
		const result = await this.#open().call("compact", instructions.trim() ? { instructions: instructions.trim() } : {});
		// pi's words for a cancelled compaction.
		if (result.aborted) this.#ctx.screen.notice("Compaction cancelled", "error");
	}

	async newContext(handoff: string): Promise<void> {
		if (!isOwnerRole(this.#ctx.role())) throw new Error("Only the owner can start a fresh context.");
		await this.#open().call("newContext", handoff.trim() ? { handoff: handoff.trim() } : {});
	}

	async shell(command: string, includeInContext: boolean): Promise<void> {
		this.#mayAct("run commands");
		await this.#open().call("shell", { command, includeInContext });
	}

	/**
	 * Someone else's stop, an owner's dequeue or a rejected approval sent this person's queued texts back: they
	 * go into the editor (nothing typed is lost), then the server is told they arrived.
	 */
	takeReturned(chat: ObjectRef<typeof chatContract>, state: ChatState | undefined): void {
		const viewer = this.#ctx.viewer();
		if (!state || !viewer || this.#ctx.role() === "view") return;
		for (const item of state.returned) {
			if (item.authorId !== viewer || this.#acked.has(item.id)) continue;
			this.#acked.add(item.id);
			this.#restore(item.texts);
			this.#ctx.screen.notice("Your queued message came back to the editor");
			chat.call("ackReturned", { id: item.id }).catch(() => this.#acked.delete(item.id));
		}
	}

	/** Texts taken back from the queue go into the editor, before what is there. */
	#restore(texts: string[]): void {
		const editor = this.#ctx.screen.editor;
		const now = editor.getText();
		editor.setText([...texts, ...(now ? [now] : [])].join("\n"));
		this.#ctx.requestRender();
	}
}
