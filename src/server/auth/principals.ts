import { DEVICE_TOKEN_HEADER, GUEST_COOKIE, OWNER_COOKIE } from "../../protocol/server-info.ts";
import { readCookie } from "../http-util.ts";
import { DEVICE_OWNER, type Principal } from "../objects/principal.ts";
import type { OwnerStore } from "./owner-store.ts";
import { sameSecret } from "./tokens.ts";

export function isLoopback(address: string | undefined): boolean {
	if (!address) return false;
	return address === "::1" || address.startsWith("127.") || address.startsWith("::ffff:127.");
}

export interface PrincipalSources {
	readonly deviceToken: string;
	readonly owners: OwnerStore;
	/** The guest a guest cookie admits now, or null (unknown, removed, blocked, or the session is gone). */
	readonly guest: (cookie: string) => Principal | null;
}

/**
 * Who a request comes from. The device owner needs both a loopback peer and the device token (a proxy on
 * loopback carries no token); an owner needs a live owner cookie; a guest a live guest cookie, for one session.
 */
export function resolvePrincipal(req: Request, peer: string | undefined, sources: PrincipalSources): Principal | null {
	const device = req.headers.get(DEVICE_TOKEN_HEADER);
	if (device !== null) {
		return isLoopback(peer) && sameSecret(device, sources.deviceToken) ? DEVICE_OWNER : null;
	}
	const cookie = readCookie(req, OWNER_COOKIE);
	if (cookie) {
		const login = sources.owners.check(cookie, Date.now());
		if (login) return { role: "owner", id: `owner:${login.id}`, name: "owner" };
	}
	const guest = readCookie(req, GUEST_COOKIE);
	return guest ? sources.guest(guest) : null;
}
