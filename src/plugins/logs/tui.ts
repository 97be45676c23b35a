/**
 * `/logs [source]`: the server's log, live, in the dock. The logs object is opened while the viewer
 * is on screen, and only for owners; guests never ask for it.
 */
import type { GuestPlugin } from "../../guest/plugin.ts";
import { logsContract } from "./contract.ts";
import { LogViewer } from "./tui-viewer.ts";

export const logsPlugin: GuestPlugin = {
	name: "logs",
	register(ctx) {
		return ctx.commands.register({
			id: "p2.logs",
			title: "The server's log, live (tab cycles sources)",
			category: "p2",
			requires: { role: "owner", to: "read the server's log" },
			slash: { name: "logs", argumentHint: "[source]" },
			run: (args) => {
				const { ui } = ctx;
				const ref = ctx.objects.open(logsContract, {});
				const source = args.trim();
				const viewer = new LogViewer(ui.theme, {
					lines: () => ref.state?.lines,
					...(source ? { source } : {}),
					close: () => {
						ui.closeSelector();
						ref.close();
					},
				});
				ref.onChange(() => {
					if (ui.selector?.component === viewer) ui.requestRender();
				});
				ui.showSelector("logs", viewer);
			},
		});
	},
};
