/** The server's defaults for its UI (`<data>/tui.json`) go under the person's own preferences. */
import type { GuestPlugin } from "../../guest/plugin.ts";
import { tuiDefaultsContract } from "./contract.ts";

export const tuiDefaultsPlugin: GuestPlugin = {
	name: "tui-defaults",
	register(ctx) {
		const defaults = ctx.objects.open(tuiDefaultsContract, {});
		defaults.onChange((state) => ctx.preferences.setServerDefaults(state));
		return () => defaults.close();
	},
};
