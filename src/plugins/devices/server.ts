/**
 * The owner's devices: the owner sign-ins with when and from where each was made and last used,
 * which one this connection is, signing one or all out, and a one-time owner link for a new device.
 */
import { ProtocolError } from "../../protocol/codes.ts";
import { LiveState, type Principal, type ServerContext, type ServerPlugin } from "../../server/plugin.ts";
import { type DevicesState, devicesContract } from "./contract.ts";

function stateFor(ctx: ServerContext, principal: Principal): DevicesState {
	return {
		signIns: ctx.owners
			.list()
			.slice(0, 1000)
			.map((s) => ({
				id: s.id,
				createdAt: s.createdAt,
				lastUsedAt: s.lastUsedAt,
				address: s.address,
				agent: s.agent,
				current: principal.id === `owner:${s.id}`,
			}))
			// This device first, then the others by last use.
			.sort((a, b) => Number(b.current) - Number(a.current)),
	};
}

export const devicesPlugin: ServerPlugin = {
	name: "devices",
	register(ctx) {
		const views = new Set<{ live: LiveState<DevicesState>; principal: Principal }>();
		const refresh = () => {
			for (const view of views) view.live.update([{ op: "set", path: [], value: stateFor(ctx, view.principal) }]);
		};
		// A device signing in or out connects or leaves: the list is read again then.
		ctx.host.onPresence(refresh);
		ctx.host.serve(devicesContract, {
			open(_input, { principal }) {
				const view = { live: new LiveState(stateFor(ctx, principal)), principal };
				views.add(view);
				return {
					state: view.live,
					methods: {
						signOut({ id }) {
							if (principal.id === `owner:${id}`)
								throw new ProtocolError("bad_args", "this device signs out through p2 itself (/signout)");
							if (!ctx.owners.signOut(id)) throw new ProtocolError("not_found", "that sign-in is gone");
							ctx.log.info("server", "an owner sign-in was ended from /devices");
							refresh();
							return null;
						},
						signOutAll() {
							const own = principal.id.startsWith("owner:") ? principal.id.slice("owner:".length) : undefined;
							const ended = ctx.owners.signOutAll(own);
							ctx.log.info("server", `every owner sign-in was ended from /devices (${ended})`);
							refresh();
							return { ended };
						},
						link() {
							ctx.log.info("server", "a one-time owner link was made from /devices");
							return { path: ctx.owners.mintLink() };
						},
					},
					release: () => views.delete(view),
				};
			},
		});
	},
};
