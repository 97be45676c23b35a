/**
 * A guest bundle for bench/chat.ts: streams a long answer through the chat surface's AssistantMessage inside
 * the real sandbox (ses lockdown, Compartment), and logs the cost per token.
 */
import "../../src/guest/platform-prelude.ts";
import type { GuestEntry } from "../../src/protocol/channel.ts";
import { assistantMessageCost } from "./stream-render.ts";

const entry: GuestEntry = {
	start(host) {
		const cost = assistantMessageCost(4000);
		host.post({ kind: "log", level: "info", text: JSON.stringify(cost) });
	},
};
(globalThis as { p2Guest?: GuestEntry }).p2Guest = entry;
