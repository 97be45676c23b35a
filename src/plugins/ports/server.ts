/**
 * `/ports`: the TCP ports listening in the session's environment, with the process
 * that holds each where it can be known (the server's own machine, or a session's SSH machine), and the relay that
 * carries one to an owner's machine ("Open on this computer", through their launcher).
 */
import { ProtocolError } from "../../protocol/codes.ts";
import { errorText } from "../../protocol/errors.ts";
import { isOwner, LiveState, type Principal, type ServerContext, type ServerPlugin } from "../../server/plugin.ts";
import { type PortsState, portsContract } from "./contract.ts";
import { listeningPorts } from "./listening.ts";
import { type GuestRelays, mayForward, RELAY_PATH, relayAccept } from "./relay.ts";

/** A guest never learns the server's machines: which one, or how it failed (README: guests never see environments). */
const GUESTS_MACHINE = "the session's machine";

async function list(ctx: ServerContext, session: string, principal: Principal): Promise<PortsState> {
	const env = ctx.catalog.get(session)?.env ?? "local";
	const owner = isOwner(principal);
	const shownEnv = owner || env === "local" ? env : GUESTS_MACHINE;
	try {
		const ports = await listeningPorts(ctx.environments.get(env));
		return { env: shownEnv, ports, error: null, at: Date.now() };
	} catch (error) {
		const why = owner ? errorText(error).slice(0, 500) : `${GUESTS_MACHINE} could not be reached`;
		return { env: shownEnv, ports: [], error: why, at: Date.now() };
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
				const live = new LiveState<PortsState>(await list(ctx, session, principal));
				return {
					state: live,
					methods: {
						async refresh(_args, { principal: now }) {
							// Asked again after the owner stopped guests forwarding: refused, as a new open is.
							if (!mayForward(ctx, now, session))
								throw new ProtocolError("forbidden", "the owner has not let guests open this session's ports (/share)");
							live.update([{ op: "set", path: [], value: await list(ctx, session, now) }]);
							return null;
						},
					},
				};
			},
		});
	},
};
