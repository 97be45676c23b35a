/**
 * Subagents in the UI: the subagent tool's card, /agents (the session's conversations, threaded by
 * parent; Enter opens one, keeping each conversation's draft and reading position) and /main. The chat shows
 * the conversation; this plugin only tells it which one, and names it in the footer's crumb.
 */
import type { GuestPlugin } from "../../guest/plugin.ts";
import type { ObjectRef } from "../../protocol/object-client.ts";
import { isParticipantRole } from "../../protocol/roles.ts";
import { type ConversationItem, conversationsContract, MAIN_CONVERSATION, SUBAGENT_TOOL } from "./contract.ts";
import { AgentsSelector } from "./tui/agents-selector.ts";
import { subagentCard } from "./tui/card.ts";

/** One subagent conversation of a session, as the session picker nests it under its session. */
export interface SubagentEntry {
	readonly id: string;
	readonly title: string;
	readonly status: string | null;
}

/** Sessions' subagents for other plugins' lists (the session picker's threaded order). */
export interface SubagentLists {
	/** The session's subagents (archived ones left out), once the server said; asking starts the asking. */
	of(session: string): readonly SubagentEntry[] | undefined;
	onChange(listener: () => void): () => void;
	/** Stops following the sessions asked about (the list that asked closed). */
	forget(): void;
	/** Opens the session and, on the screen, that conversation of it. */
	open(session: string, conversation: string): void;
}

declare module "../../guest/services.ts" {
	interface GuestServices {
		subagentLists: SubagentLists;
	}
}

/** At most this many sessions' lists are followed at once for the picker. */
const FOLLOWED = 50;

export const subagentsPlugin: GuestPlugin = {
	name: "subagents",
	register(ctx) {
		const { ui } = ctx;
		/** The open session's conversations: the main one and its subagents. */
		const list = ctx.objects.follow(conversationsContract, ({ id }) => (id ? { session: id } : undefined));
		const conversation = () => ctx.services.get("conversation");
		const navigate = (row: ConversationItem) => {
			const open = conversation();
			if (!open) return;
			open.navigate(row.id, row.id === MAIN_CONVERSATION ? undefined : row.title || row.id);
		};
		const openSelector = () => {
			const open = conversation();
			if (!list.state || !open) return ui.notice("The session's conversations are not here yet.");
			const rows = () => list.state?.conversations ?? [];
			const selector = new AgentsSelector({
				theme: ui.theme,
				rows,
				current: open.current,
				mayArchive: isParticipantRole(ctx.session.role),
				maxVisible: Math.max(5, Math.floor(ui.tui.terminal.rows / 2)),
				now: () => Date.now(),
				open: (row) => {
					ui.closeSelector();
					navigate(row);
				},
				archive: async (row, archived) => {
					await list.ref?.call(archived ? "archive" : "restore", { id: row.id });
				},
				close: () => ui.closeSelector(),
				requestRender: () => ui.requestRender(),
			});
			ui.showSelector("agents", selector);
		};
		// The session picker's lists: one conversations object per session it shows, closed when it is done.
		const followed = new Map<string, ObjectRef<typeof conversationsContract>>();
		const listeners = new Set<() => void>();
		const lists: SubagentLists = {
			of(session) {
				let ref = followed.get(session);
				if (!ref) {
					if (followed.size >= FOLLOWED) return undefined;
					ref = ctx.objects.open(conversationsContract, { session });
					followed.set(session, ref);
					ref.onChange(() => {
						for (const listener of [...listeners]) listener();
					});
				}
				return ref.state?.conversations
					.filter((c) => c.id !== MAIN_CONVERSATION && !c.archived)
					.map((c) => ({ id: c.id, title: c.title, status: c.status }));
			},
			onChange(listener) {
				listeners.add(listener);
				return () => listeners.delete(listener);
			},
			forget() {
				for (const ref of followed.values()) ref.close();
				followed.clear();
			},
			open(session, id) {
				const title = followed.get(session)?.state?.conversations.find((c) => c.id === id)?.title;
				if (ctx.session.id !== session) ctx.session.open(session);
				conversation()?.navigate(id, title || id);
			},
		};
		const removals = [
			ctx.services.provide("subagentLists", lists),
			ctx.registries.toolRenderers.register(SUBAGENT_TOOL, (data, theme) => subagentCard(data, theme)),
			// A subagent renamed or gone from the list: the crumb follows what the server says.
			list.onChange((state) => {
				if (!state) return;
				// An open /agents shows the change (a subagent done, archived, started).
				if (ui.selector?.id === "agents") ui.requestRender();
				const open = conversation();
				if (!open || open.current === MAIN_CONVERSATION) return;
				const row = state.conversations.find((c) => c.id === open.current);
				if (row) open.navigate(row.id, row.title || row.id);
			}),
			ctx.commands.register({
				id: "p2.agents",
				title: "Show the main conversation and its subagents",
				category: "Sessions",
				when: "chat && !overlay",
				slash: { name: "agents" },
				run: openSelector,
			}),
			ctx.commands.register({
				id: "p2.agents.main",
				title: "Return to the main conversation",
				category: "Sessions",
				when: "chat && !overlay",
				slash: { name: "main" },
				run: () => {
					const open = conversation();
					if (!open) return;
					if (open.current === MAIN_CONVERSATION) return ui.notice("This is the main conversation.");
					open.navigate(MAIN_CONVERSATION);
				},
			}),
		];
		return () => {
			for (const remove of removals.reverse()) remove();
			lists.forget();
			list.close();
		};
	},
};
