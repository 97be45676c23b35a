/**
 * pi's /fork and /clone: a new session from an earlier message of this one (the message goes back into the
 * editor), or a copy of it as it stands. The server makes the child session; the screen then opens it.
 */
import type { GuestContext } from "../../../guest/plugin.ts";
import { MessageSelector } from "../../../ui/message-selector.ts";
import type { ChatEntry } from "./peers.ts";

type UserEntry = Extract<ChatEntry, { kind: "user" }>;

export function registerForkCommands(ctx: GuestContext): () => void {
	const { ui } = ctx;
	const conversation = () => ctx.services.get("conversation");
	const fork = async (beforeSeq: number | undefined, draft: string, done: string) => {
		const chat = conversation()?.ref;
		if (!chat) return ui.notice("No session is open yet.");
		const { session } = await chat.call("fork", beforeSeq === undefined ? {} : { beforeSeq });
		ctx.session.open(session, { draft });
		ui.notice(done);
	};
	const ownerOnly = { role: "owner", to: "start sessions; you were given this one" } as const;
	const entries = () => conversation()?.entries() ?? [];
	const removals = [
		ctx.commands.register({
			id: "app.session.fork",
			title: "Create a new fork from a previous user message",
			category: "Sessions",
			when: "chat && owner",
			requires: ownerOnly,
			slash: { name: "fork" },
			run: () => {
				const messages = entries().filter((e): e is UserEntry => e.kind === "user");
				if (!messages.length) return ui.notice("No messages to fork from");
				ui.showSelector(
					"fork",
					// pi's "Fork from Message": the user messages, the latest selected.
					new MessageSelector<UserEntry>(ui.theme, {
						title: "Fork from Message",
						hint: "Select a user message to copy the conversation up to that point into a new session",
						messages,
						text: (entry) => entry.text,
						choose: (entry) => {
							ui.closeSelector();
							fork(entry.seq, entry.text, "Forked to new session").catch((error: unknown) => ui.fail(error));
						},
						cancel: () => ui.closeSelector(),
					}),
				);
			},
		}),
		ctx.commands.register({
			id: "p2.session.clone",
			title: "Duplicate the current session at the current position",
			category: "Sessions",
			when: "chat",
			requires: ownerOnly,
			slash: { name: "clone" },
			run: async () => {
				if (!entries().length) return ui.notice("Nothing to clone yet");
				await fork(undefined, "", "Cloned to new session");
			},
		}),
	];
	return () => {
		for (const remove of removals) remove();
	};
}
