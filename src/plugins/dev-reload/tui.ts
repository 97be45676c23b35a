/**
 * `/dev-reload`: asks a server in development mode to rebuild its UI from the sources, then reloads this UI
 * on it (the core's /reload). Owners only; the object is held only while the command runs.
 */
import type { GuestPlugin } from "../../guest/plugin.ts";
import { visibleText } from "../../ui/text.ts";
import { devContract } from "./contract.ts";

export const devReloadPlugin: GuestPlugin = {
	name: "dev-reload",
	register(ctx) {
		return ctx.commands.register({
			id: "p2.devReload",
			title: "Rebuild the UI from the server's sources and reload it (development)",
			category: "p2",
			requires: { role: "owner", to: "rebuild the server's UI" },
			slash: { name: "dev-reload" },
			run: async () => {
				const { ui } = ctx;
				const ref = ctx.objects.open(devContract, {});
				ui.notice("Building the UI…");
				try {
					await ref.ready;
					const { changed, message } = await ref.call("reload", {});
					ui.notice(visibleText(message, false));
					if (changed) await ctx.commands.get("p2.tui.reload")?.run("");
				} catch (error) {
					ui.fail(error);
				} finally {
					ref.close();
				}
			},
		});
	},
};
