/**
 * The open conversation's usage numbers (seed 1.16) for the footer and /session: the status object of the
 * session on screen, offered to the other plugins as the `usage` service.
 */
import type { GuestPlugin } from "../../guest/plugin.ts";
import { MAIN_CONVERSATION } from "../../protocol/common.ts";
import type { ObjectRef } from "../../protocol/object-client.ts";
import { type StatusState, statusContract } from "./contract.ts";

export interface Usage {
	/** The numbers of the conversation on screen; undefined until they arrive, and again after a switch. */
	state(): StatusState | undefined;
	onChange(listener: (state: StatusState | undefined) => void): () => void;
}

declare module "../../guest/services.ts" {
	interface GuestServices {
		usage: Usage;
	}
}

export const statusPlugin: GuestPlugin = {
	name: "status",
	register(ctx) {
		let status: ObjectRef<typeof statusContract> | undefined;
		const listeners = new Set<(state: StatusState | undefined) => void>();
		const changed = (state: StatusState | undefined) => {
			for (const listener of [...listeners]) listener(state);
		};
		const removeService = ctx.services.provide("usage", {
			state: () => status?.state,
			onChange: (listener) => {
				listeners.add(listener);
				return () => listeners.delete(listener);
			},
		});
		const offClosed = ctx.session.on("closed", () => {
			status?.close();
			changed(undefined);
		});
		const follow = (session: string, conversation: string) => {
			status?.close();
			const ref = ctx.objects.open(statusContract, { session, conversation });
			status = ref;
			changed(undefined);
			ref.onChange((state) => {
				if (status === ref) changed(state);
			});
		};
		const offOpened = ctx.session.on("opened", ({ id }) => follow(id, MAIN_CONVERSATION));
		// The chat shows another conversation of the session (a subagent's): its numbers, and the session's.
		let offNavigate: (() => void) | undefined;
		ctx.services.use("conversation", (conversation) => {
			offNavigate = conversation.onNavigate((id) => {
				const session = ctx.session.id;
				if (session) follow(session, id);
			});
		});
		return () => {
			removeService();
			offClosed();
			offOpened();
			offNavigate?.();
			status?.close();
		};
	},
};
