/**
 * pi's /tree (and the double Escape's `tree` action) on p2's tree of sessions and their forks: the selector
 * opens on the open session; Enter opens another, as /resume does.
 */
import type { GuestContext } from "../../../guest/plugin.ts";
import type { Catalog } from "./session-commands.ts";
import { TreeSelector } from "./tree-selector.ts";

export function registerTreeCommand(ctx: GuestContext, catalog: Catalog): () => void {
	const { ui } = ctx;
	const report = (work: Promise<unknown>) => work.catch((error: unknown) => ui.fail(error));
	return ctx.commands.register({
		id: "app.session.tree",
		title: "Navigate session tree (sessions and their forks)",
		category: "Sessions",
		when: "chat && !overlay",
		requires: { role: "owner", to: "browse sessions; you were given this one" },
		slash: { name: "tree" },
		run: () => {
			const sessions = catalog();
			if (!sessions?.state) return ui.notice("The session list is not here yet.");
			const current = ctx.session.id;
			ui.showSelector(
				"tree",
				new TreeSelector({
					theme: ui.theme,
					rows: () => sessions.state?.sessions ?? [],
					current,
					maxVisible: Math.max(5, Math.floor(ui.tui.terminal.rows / 2)),
					keys: (id) => ui.keys(id),
					now: () => Date.now(),
					open: (id) => {
						ui.closeSelector();
						if (id === ctx.session.id) return;
						ctx.session.open(id);
						ui.notice("Resumed session");
					},
					togglePin: (row) => {
						void report(sessions.call("pin", { id: row.id, pinned: !row.pinned }).then(() => ui.requestRender()));
					},
					copy: (row) => {
						void report(ctx.launcher.request("copy", { text: row.id, label: "the session's id" }));
					},
					close: () => ui.closeSelector(),
				}),
			);
		},
	});
}
