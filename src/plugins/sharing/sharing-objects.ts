import { hostname } from "node:os";
import { ProtocolError } from "../../protocol/codes.ts";
import {
	type Handlers,
	LiveState,
	type OpenedObject,
	type Principal,
	type ServerContext,
} from "../../server/plugin.ts";
import type { SharingState, sharingContract } from "./contract.ts";
import type { ShareStore } from "./share-store.ts";

/** The principal id of a guest the sharing plugin admitted. */
export const guestId = (id: string) => `guest:${id}`;

/** The owner's view of each shared session, live while an owner has it open. */
export class SharingObjects {
	#ctx: ServerContext;
	#shares: ShareStore;
	#open = new Map<string, { live: LiveState<SharingState>; holders: number }>();
	readonly #machine = hostname();

	constructor(ctx: ServerContext, shares: ShareStore) {
		this.#ctx = ctx;
		this.#shares = shares;
		ctx.host.onPresence(() => {
			for (const session of this.#open.keys()) this.refresh(session);
		});
	}

	#state(session: string): SharingState {
		const shares = this.#shares;
		const { host } = this.#ctx;
		const connected = new Map<string, number>();
		for (const p of host.connectedPrincipals()) connected.set(p.id, (connected.get(p.id) ?? 0) + 1);
		return {
			links: {
				view: shares.link(session, "view")?.createdAt ?? null,
				full: shares.link(session, "full")?.createdAt ?? null,
			},
			guests: shares.guests(session).map((g) => ({
				id: g.id,
				name: g.name,
				access: g.access,
				since: g.since,
				connected: g.blocked ? 0 : (connected.get(guestId(g.id)) ?? 0),
				blocked: g.blocked,
			})),
			approval: shares.approval(session),
			guestForwards: shares.guestForwards(session),
			machine: this.#machine,
		};
	}

	refresh(session: string): void {
		const entry = this.#open.get(session);
		if (!entry) return;
		const next = this.#state(session);
		if (JSON.stringify(next) !== JSON.stringify(entry.live.state))
			entry.live.update([{ op: "set", path: [], value: next }]);
	}

	open(session: string): OpenedObject<typeof sharingContract> {
		if (!this.#ctx.catalog.get(session)) throw new ProtocolError("not_found", `no session ${session}`);
		let entry = this.#open.get(session);
		if (!entry) {
			entry = { live: new LiveState(this.#state(session)), holders: 0 };
			this.#open.set(session, entry);
		}
		entry.holders++;
		const held = entry;
		let released = false;
		return {
			state: held.live,
			methods: this.#methods(session),
			release: () => {
				if (released) return;
				released = true;
				if (--held.holders === 0 && this.#open.get(session) === held) this.#open.delete(session);
			},
		};
	}

	#methods(session: string): Handlers<typeof sharingContract> {
		const shares = this.#shares;
		const { host, bus } = this.#ctx;
		const ofSession = (id: string) => {
			const guest = shares.guest(id);
			if (!guest || guest.session !== session) throw new ProtocolError("not_found", "no such guest in this session");
			return guest;
		};
		return {
			link: ({ access, confirm }) => {
				if (access === "full" && !shares.link(session, "full") && confirm !== true) {
					throw new ProtocolError(
						"conflict",
						`guests with full access can run commands on ${this.#machine}; confirm first`,
					);
				}
				const link = shares.ensureLink(session, access);
				this.refresh(session);
				return { path: `/join/${link.token}` };
			},
			reset: ({ access }) => {
				const { link, ended } = shares.resetLink(session, access);
				const ids = new Set(ended.map((g) => guestId(g.id)));
				host.reprincipal(
					(p) => ids.has(p.id),
					() => null,
				);
				this.refresh(session);
				return { path: `/join/${link.token}` };
			},
			setAccess: ({ guest: id, access }) => {
				ofSession(id);
				const guest = shares.setAccess(id, access);
				if (!guest) throw new ProtocolError("conflict", "this guest is blocked");
				host.reprincipal(
					(p) => p.id === guestId(guest.id),
					(p): Principal => ({ ...p, role: guest.access }),
				);
				this.refresh(session);
				return null;
			},
			remove: ({ guest, block }) => {
				ofSession(guest);
				shares.remove(guest, block);
				host.reprincipal(
					(p) => p.id === guestId(guest),
					() => null,
				);
				this.refresh(session);
				return null;
			},
			setApproval: ({ on }) => {
				shares.setApproval(session, on);
				bus.emit({ type: "sharing.approval", session, on });
				this.refresh(session);
				return null;
			},
			setGuestForwards: ({ on }) => {
				shares.setGuestForwards(session, on);
				bus.emit({ type: "sharing.guestForwards", session, on });
				this.refresh(session);
				return null;
			},
		};
	}
}
