import type { ObjectHost } from "../objects/host.ts";
import type { OwnerSignIns } from "../plugin.ts";
import type { OwnerStore } from "./owner-store.ts";

/** The owner sign-ins as the owner's own UI manages them: a sign-in that ends closes its connections at once. */
export function ownerSignIns(owners: OwnerStore, host: ObjectHost): OwnerSignIns {
	return {
		list: () => owners.list(),
		signOut(id) {
			const ended = owners.logoutId(id);
			if (ended)
				host.reprincipal(
					(p) => p.id === `owner:${id}`,
					() => null,
				);
			return ended;
		},
		signOutAll(keep) {
			const ended = owners.logoutAll(keep);
			host.reprincipal(
				(p) => p.role === "owner" && p.id !== `owner:${keep}`,
				() => null,
			);
			return ended;
		},
		mintLink: () => `/owner#${owners.mintLink()}`,
	};
}
