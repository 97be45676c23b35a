/**
 * The chat's `conversation` service: what other plugins may see and do of the conversation on the screen,
 * gathered from the chat's parts (the shown object, the open conversation, the actions, the screen).
 */
import type { GuestObjects } from "../../../guest/plugin.ts";
import { MAIN_CONVERSATION } from "../../../protocol/common.ts";
import type { ObjectRef } from "../../../protocol/object-client.ts";
import { type ChatEntry, chatContract } from "../contract.ts";
import type { ChatActions, SendExtra } from "./actions.ts";
import type { OpenConversation } from "./conversation.ts";
import { goneDirectoryOf } from "./gone-directory.ts";
import type { ChatScreen } from "./screen.ts";
import type { ShownChat } from "./shown-chat.ts";

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

/** The parts the service is made of. */
export interface ConversationServiceParts {
	readonly objects: Pick<GuestObjects, "open">;
	readonly shown: ShownChat;
	readonly conversation: Pick<OpenConversation, "current" | "navigate" | "onNavigate">;
	readonly actions: Pick<ChatActions, "addSendExtra">;
	readonly screen: Pick<ChatScreen, "entries" | "scrolledAway" | "onScroll">;
}

export function conversationService(parts: ConversationServiceParts): ConversationService {
	const { objects, shown, conversation, actions, screen } = parts;
	return {
		get ref() {
			return shown.ref;
		},
		entries: () => screen.entries,
		goneDirectory: () => goneDirectoryOf(shown.state),
		async forkSession(session, args) {
			const chat = objects.open(chatContract, { session, conversation: MAIN_CONVERSATION });
			try {
				await chat.ready;
				return (await chat.call("fork", args.cwd ? { cwd: args.cwd } : {})).session;
			} finally {
				chat.close();
			}
		},
		get current() {
			return conversation.current;
		},
		navigate: (id, label) => conversation.navigate(id, label),
		onNavigate: (listener) => conversation.onNavigate(listener),
		addSendExtra: (provider) => actions.addSendExtra(provider),
		scrolledAway: () => screen.scrolledAway(),
		onScroll: (listener) => screen.onScroll(listener),
	};
}
