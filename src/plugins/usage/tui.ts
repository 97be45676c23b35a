/**
 * The open conversation's usage numbers for the footer and /session: the usage object of the
 * session on screen, offered to the other plugins as the `usage` service.
 */
import type { GuestPlugin } from "../../guest/plugin.ts";
import { MAIN_CONVERSATION } from "../../protocol/common.ts";
import { type UsageState, usageContract } from "./contract.ts";

export interface Usage {
	/** The numbers of the conversation on screen; undefined until they arrive, and again after a switch. */
	state(): UsageState | undefined;
	onChange(listener: (state: UsageState | undefined) => void): () => void;
}

declare module "../../guest/services.ts" {
	interface GuestServices {
		usage: Usage;
	}
}

export const usagePlugin: GuestPlugin = {
	name: "usage",
	register(ctx) {
		/** The conversation the chat navigated to (a subagent's), in the session it was in. */
		let navigated: { session: string; conversation: string } | undefined;
		const usage = ctx.objects.follow(usageContract, ({ id }) => {
			if (!id) return undefined;
			return { session: id, conversation: navigated?.session === id ? navigated.conversation : MAIN_CONVERSATION };
		});
		const listeners = new Set<(state: UsageState | undefined) => void>();
		const offUsage = usage.onChange((state) => {
			for (const listener of [...listeners]) listener(state);
		});
		const removeService = ctx.services.provide("usage", {
			state: () => usage.state,
			onChange: (listener) => {
				listeners.add(listener);
				return () => listeners.delete(listener);
			},
		});
		// The chat shows another conversation of the session (a subagent's): its numbers, and the session's.
		let offNavigate: (() => void) | undefined;
		ctx.services.use("conversation", (conversation) => {
			offNavigate = conversation.onNavigate((id) => {
				const session = ctx.session.id;
				navigated = session ? { session, conversation: id } : undefined;
				usage.refresh();
			});
		});
		return () => {
			removeService();
			offUsage();
			offNavigate?.();
			usage.close();
		};
	},
};
