import { LiveState, type Principal, type ServerPlugin } from "../../server/plugin.ts";
import { type AccessState, accessContract } from "./contract.ts";

export const accessPlugin: ServerPlugin = {
	name: "access",
	register({ host }) {
		host.serve(accessContract, {
			open(_input, { principal }) {
				const stateOf = (p: Principal): AccessState => ({
					role: p.role,
					id: p.id,
					name: p.name,
					session: p.session ?? null,
				});
				const live = new LiveState(stateOf(principal));
				return {
					state: live,
					methods: {},
					// A guest demoted or promoted by the owner sees their new access at once, not at reconnect.
					principalChanged: (next) => live.update([{ op: "set", path: [], value: stateOf(next) }]),
				};
			},
		});
	},
};
