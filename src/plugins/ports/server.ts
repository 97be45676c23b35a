/**
 * `/ports` (seed section 9, P11f): the TCP ports listening in the session's environment, with the process
 * that holds each where it can be known (the server's own machine, or a session's SSH machine), and the relay that
 * carries one to an owner's machine ("Open on this computer", through their launcher).
 */
import { ProtocolError } from "../../protocol/codes.ts";
import { errorText } from "../../protocol/errors.ts";
import { LiveState } from "../../server/objects/live-state.ts";
import type { ServerContext, ServerPlugin } from "../../server/plugin.ts";
import { type PortsState, portsContract } from "./contract.ts";
import { listeningPorts } from "./listening.ts";
import { type GuestRelays, mayForward, RELAY_PATH, relayAccept } from "./relay.ts";
import { remoteListeningPorts } from "./remote.ts";

async function list(ctx: ServerContext, session: string): Promise<PortsState> {
	const env = ctx.catalog.get(session)?.env ?? "local";
	try {
		const ports = env === "local" ? listeningPorts() : await remoteListeningPorts(ctx.environments.get(env));
		return { env, ports, error: null, at: Date.now() };
	} catch (error) {
		return { env, ports: [], error: errorText(error).slice(0, 500), at: Date.now() };
	}
}

export const portsPlugin: ServerPlugin = {
	name: "ports",
	register(ctx) {
		const guests: GuestRelays = new Map();
		ctx.relays.add(RELAY_PATH, relayAccept(ctx, guests));
		// The owner stopped guests forwarding: what they have open closes now.
		ctx.bus.on("sharing.guestForwards", ({ session, on }) => {
			if (on) return;
			for (const relay of guests.get(session) ?? []) relay.close();
		});
		ctx.host.serve(portsContract, {
			async open({ session }, { principal }) {
				if (!mayForward(ctx, principal, session))
					throw new ProtocolError("forbidden", "the owner has not let guests open this session's ports (/share)");
				if (!ctx.catalog.get(session)) throw new ProtocolError("not_found", `no session ${session}`);
				const live = new LiveState<PortsState>(await list(ctx, session));
				return {
					state: live,
					methods: {
						async refresh() {
							live.update([{ op: "set", path: [], value: await list(ctx, session) }]);
							return null;
						},
					},
				};
			},
		});
	},
};
