/**
 * When a server a launcher started has nothing to do: nobody connected and no run live, for a while. It then
 * ends; the next launcher starts another (its data is all on disk).
 */
import type { ServerContext } from "./plugin.ts";

export interface IdleWatch {
	/** Whether a run is live now (a server that makes way for another build never stops one). */
	busy(): boolean;
	/** Whether the server is idle now (its end is counting down). */
	idle(): boolean;
	stop(): void;
}

export function watchIdle(ctx: ServerContext, idleMs: number, onIdle: () => void): IdleWatch {
	const busySessions = new Set<string>();
	let timer: ReturnType<typeof setTimeout> | undefined;
	const check = () => {
		if (timer) clearTimeout(timer);
		timer = undefined;
		if (busySessions.size > 0 || ctx.host.connectedPrincipals().length > 0) return;
		timer = setTimeout(onIdle, idleMs);
	};
	const offBusy = ctx.bus.on("session.busy", ({ session, busy }) => {
		if (busy) busySessions.add(session);
		else busySessions.delete(session);
		check();
	});
	const offPresence = ctx.host.onPresence(check);
	check();
	return {
		busy: () => busySessions.size > 0,
		idle: () => timer !== undefined,
		stop() {
			offBusy();
			offPresence();
			if (timer) clearTimeout(timer);
		},
	};
}
