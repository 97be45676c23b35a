/**
 * The chat object of the conversation on the screen: the open conversation (conversation.ts) sets it as it
 * opens and leaves conversations and says when its state changes; the actions call it and the chat's other
 * parts read it. It knows neither side, so the wiring stays one-way: server state → conversation → screen,
 * and keys → screen → actions → this object.
 */
import type { ObjectRef } from "../../../protocol/object-client.ts";
import type { ChatState, chatContract } from "../contract.ts";

export type ChatRef = ObjectRef<typeof chatContract>;

export class ShownChat {
	#ref: ChatRef | undefined;
	readonly #listeners = new Set<(chat: ChatRef, state: ChatState | undefined) => void>();

	/** Undefined until a session opens, and between leaving a conversation and opening the next. */
	get ref(): ChatRef | undefined {
		return this.#ref;
	}

	/** Its state now. */
	get state(): ChatState | undefined {
		return this.#ref?.state;
	}

	/** Another conversation's object is on the screen (undefined: none). */
	show(ref: ChatRef | undefined): void {
		this.#ref = ref;
	}

	/** The shown object's state changed (the conversation tells, after the screen has it). */
	changed(chat: ChatRef, state: ChatState | undefined): void {
		for (const listener of [...this.#listeners]) listener(chat, state);
	}

	onChange(listener: (chat: ChatRef, state: ChatState | undefined) => void): () => void {
		this.#listeners.add(listener);
		return () => this.#listeners.delete(listener);
	}
}
