/**
 * Sessions in the UI: which one opens at start, the session picker (/resume, Ctrl+R), the session tree
 * (/tree), /new, /name, /session, /fork and /clone, and the open session's row (its directory, branch and title) for the footer and title.
 */
import type { GuestPlugin } from "../../guest/plugin.ts";
import { registerForkCommands } from "./tui/fork-commands.ts";
import { formatLocation } from "./tui/location.ts";
import { registerLocationCommands } from "./tui/location-commands.ts";
import { registerNewAndName, registerSessionCommands } from "./tui/session-commands.ts";
import { SessionStart } from "./tui/session-start.ts";
import { registerTreeCommand } from "./tui/tree-commands.ts";

export const sessionsPlugin: GuestPlugin = {
	name: "sessions",
	register(ctx) {
		/** The open session's row in the catalog: the footer and the terminal's title follow it. */
		const showRow = () => {
			const row = start.catalog?.state?.sessions.find((s) => s.id === ctx.session.id);
			// The footer writes a place on another machine as env:path (gpu:/data).
			if (row) ctx.session.setFacts({ cwd: formatLocation(row.env, row.cwd), branch: row.branch, title: row.title });
		};
		const start = new SessionStart(ctx, showRow);
		const catalog = () => start.catalog;
		const removals = [
			ctx.session.on("identity", () => void start.choose()),
			ctx.session.on("opened", showRow),
			registerNewAndName(ctx, catalog),
			registerForkCommands(ctx),
			registerSessionCommands(ctx, catalog),
			registerTreeCommand(ctx, catalog),
			registerLocationCommands(ctx, catalog),
		];
		return () => {
			for (const remove of removals.reverse()) remove();
			start.catalog?.close();
		};
	},
};
