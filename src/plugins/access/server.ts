import { LiveState } from "../../server/objects/live-state.ts";
import type { ServerPlugin } from "../../server/plugin.ts";
import { type AccessState, accessContract } from "./contract.ts";

export const accessPlugin: ServerPlugin = {
	name: "access",
	register({ host }) {
		host.serve(accessContract, {
			open(_input, { principal }) {
				const state: AccessState = { role: principal.role, name: principal.name, session: principal.session ?? null };
				return { state: new LiveState(state), call: () => undefined };
			},
		});
	},
};
