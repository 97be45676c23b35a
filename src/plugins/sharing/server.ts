/**
 * Sharing a session: share links with view or full access, the guests they admitted, approval
 * mode. The plugin keeps its own store, tells the core who a guest cookie admits, and offers approval mode to
 * the other plugins as a service.
 */
import type { ServerPlugin } from "../../server/plugin.ts";
import { sharingContract } from "./contract.ts";
import { addJoinRoutes, joinLimiter } from "./join-routes.ts";
import { ShareStore } from "./share-store.ts";
import { guestId, SharingObjects } from "./sharing-objects.ts";

/** Whether a session's full guests' messages wait for the owner's approval. */
export interface ApprovalMode {
	isOn(session: string): boolean;
}

/** Whether a session's full guests may open its environment's ports on their computers (`/ports`). */
export interface GuestForwards {
	allowed(session: string): boolean;
}

declare module "../../server/events.ts" {
	interface ServerEvents {
		/** The owner turned approval mode on or off for a session's guests. */
		"sharing.approval": { session: string; on: boolean };
		/** The owner let a session's full guests forward its ports, or stopped them. */
		"sharing.guestForwards": { session: string; on: boolean };
	}
}

declare module "../../server/services.ts" {
	interface ServerServices {
		approvalMode: ApprovalMode;
		guestForwards: GuestForwards;
	}
}

export function sharingPlugin(): ServerPlugin {
	const limiter = joinLimiter();
	let shares: ShareStore | undefined;
	return {
		name: "sharing",
		register(ctx) {
			const store = ShareStore.open(ctx.dataDir);
			shares = store;
			ctx.admitGuests((cookie) => {
				const guest = store.check(cookie);
				return guest && { role: guest.access, id: guestId(guest.id), name: guest.name, session: guest.session };
			});
			ctx.services.provide("approvalMode", { isOn: (session) => store.approval(session) });
			ctx.services.provide("guestForwards", { allowed: (session) => store.guestForwards(session) });
			const objects = new SharingObjects(ctx, store);
			ctx.host.serve(sharingContract, { open: ({ session }) => objects.open(session) });
			addJoinRoutes(ctx, store, objects, limiter);
		},
		close() {
			shares?.close();
			shares = undefined;
		},
	};
}
