/**
 * `/dev-reload`: on a server started in development mode (from source), the guest bundle is built
 * again from the sources, so a contributor sees a UI change without restarting anything. Every connected
 * launcher takes the new bundle at its next check; the UI that asked reloads at once.
 */
import { ProtocolError } from "../../protocol/codes.ts";
import { errorText } from "../../protocol/errors.ts";
import { LiveState, type ServerPlugin } from "../../server/plugin.ts";
import { type DevState, devContract } from "./contract.ts";

export const devReloadPlugin: ServerPlugin = {
	name: "dev-reload",
	register(ctx) {
		const live = new LiveState<DevState>({ available: ctx.guestBundle !== null, built: null });
		let building: Promise<{ changed: boolean; message: string }> | undefined;
		const rebuild = async () => {
			const bundle = ctx.guestBundle;
			if (!bundle)
				throw new ProtocolError("unavailable", "This server is not in development mode (it runs a built p2).");
			try {
				const { hash, changed } = await bundle.rebuild();
				live.update([{ op: "set", path: ["built"], value: hash.slice(0, 128) }]);
				ctx.log.info("server", `the UI was rebuilt for /dev-reload (${changed ? "changed" : "unchanged"})`);
				return {
					changed,
					message: changed
						? "Built a new UI; every p2 connected takes it at its next check."
						: "No change to the UI since it was built.",
				};
			} catch (error) {
				ctx.log.error("server", `the UI could not be rebuilt: ${errorText(error)}`);
				throw new ProtocolError("unavailable", `The UI could not be built: ${errorText(error)}`.slice(0, 500));
			}
		};
		ctx.host.serve(devContract, {
			open: () => ({
				state: live,
				methods: {
					async reload() {
						// One build at a time: a second /dev-reload waits for the one running.
						building ??= rebuild().finally(() => {
							building = undefined;
						});
						return await building;
					},
				},
			}),
		});
	},
};
