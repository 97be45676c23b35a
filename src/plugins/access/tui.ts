/**
 * Who this person is on the server, for the whole UI: the access object's state becomes the open session's
 * identity. A guest whose access the owner changes while they are here is told so where they look.
 */
import type { GuestPlugin } from "../../guest/plugin.ts";
import { accessContract } from "./contract.ts";

export const accessPlugin: GuestPlugin = {
	name: "access",
	register(ctx) {
		const access = ctx.objects.open(accessContract, {});
		access.onChange((state) => {
			const before = ctx.session.role;
			if (before && before !== state.role && (state.role === "full" || state.role === "view")) {
				ctx.ui.notice(
					state.role === "full"
						? "The owner gave you full access: you can send messages and run commands."
						: "The owner made your access view only.",
					state.role === "full" ? "success" : "warning",
				);
			}
			ctx.session.setIdentity(state);
		});
		return () => access.close();
	},
};
