import { type } from "../../protocol/ark.ts";
import { Author, SessionId } from "../../protocol/common.ts";
import { defineContract, method } from "../../protocol/contract.ts";
import { defineEntry } from "../../protocol/entry-schema.ts";
import { lazy } from "../../protocol/lazy.ts";

/** The agent's mention: a message in chat mode that has it runs the agent. */
export const AGENT_MENTION = "@pi";

/** The entry types chat mode keeps in the main conversation (`kind: "plugin"` entries with these `type`s). */
export const MESSAGE_ENTRY = "chat-mode.message";
export const SWITCH_ENTRY = "chat-mode.switch";

export const MAX_QUOTE = 200;

/** The message a reply answers, as the server quotes it: its author and its first line. */
export const Quote = lazy(() =>
	type({ seq: "number.integer", author: "string <= 200", line: `string <= ${MAX_QUOTE}` }),
);
export type Quote = typeof Quote.infer;

/** A chat message's entry data (the author is the entry's). */
export const MessageData = lazy(() => type({ text: "string", "quote?": Quote }));
export type MessageData = typeof MessageData.infer;

/** A switch's entry data: who turned chat mode on or off is the entry's author. */
export const SwitchData = lazy(() => type({ on: "boolean" }));

/** Chat mode's transcript entries, with the schema of their data (the guest checks each before drawing it). */
export const ChatMessageEntry = defineEntry(MESSAGE_ENTRY, MessageData);
export const SwitchEntry = defineEntry(SWITCH_ENTRY, SwitchData);

export const ChatModeState = lazy(() =>
	type({
		on: "boolean",
		/** Chat messages since the agent last ran: what the next @pi takes along. */
		waiting: "number.integer >= 0",
		/** The people here now (one entry each, however many screens they have open). */
		people: Author.array().atMostLength(200),
	}),
);
export type ChatModeState = typeof ChatModeState.infer;

export const SetArgs = lazy(() => type({ on: "boolean" }));

/** The extra field a send carries for a reply: the seq of the entry it answers. */
export const REPLY_FIELD = "chatMode.replyTo";

/**
 * Chat mode of one session: on, messages are kept as chat and only an @pi mention runs the agent. Everyone in
 * the session sees it; the owner switches it.
 */
export const chatModeContract = defineContract({
	name: "chat-mode",
	version: 1,
	input: lazy(() => type({ session: SessionId })),
	methods: {
		set: method(SetArgs, type("null")),
	},
	variants: {
		deviceOwner: { state: ChatModeState, methods: ["set"] },
		owner: { state: ChatModeState, methods: ["set"] },
		full: { state: ChatModeState, methods: [] },
		view: { state: ChatModeState, methods: [] },
	},
});
