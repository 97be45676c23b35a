import type { Role } from "../../protocol/roles.ts";

/** Who is on the other end of a connection, as the server decided at admission. */
export interface Principal {
	readonly role: Role;
	/** Stable id: `device`, `owner:<login>`, `guest:<id>`. Stamped on what they author. */
	readonly id: string;
	/** Display name; guests chose theirs (unverified). */
	readonly name: string;
	/** Guests are admitted to exactly one session. */
	readonly session?: string;
}

export const DEVICE_OWNER: Principal = Object.freeze({ role: "deviceOwner", id: "device", name: "owner" });

export function isOwner(principal: Principal): boolean {
	return principal.role === "deviceOwner" || principal.role === "owner";
}

/** Guests may only touch their own session; owners any. */
export function maySeeSession(principal: Principal, session: string): boolean {
	return isOwner(principal) || principal.session === session;
}
