import { sharingContract } from "../../src/plugins/sharing/contract.ts";
import { GUEST_COOKIE, OWNER_COOKIE } from "../../src/protocol/server-info.ts";
import type { P2Server } from "../../src/server/server.ts";
import type { TestClient } from "./p2-server.ts";

function cookieFrom(response: Response, name: string): string {
	const value = new RegExp(`${name}=([^;]+)`).exec(response.headers.get("set-cookie") ?? "")?.[1];
	if (!value) throw new Error(`no ${name} cookie (status ${response.status})`);
	return `${name}=${value}`;
}

/** A share link of `access` for the session, made by `owner` and redeemed at /join; the guest's cookie header. */
export async function joinAsGuest(
	server: P2Server,
	owner: TestClient,
	session: string,
	access: "full" | "view",
	name = `${access} guest`,
): Promise<string> {
	const sharing = await owner.open(sharingContract, { session });
	const { path } = await sharing.call("link", access === "full" ? { access, confirm: true } : { access });
	const answer = await fetch(`${server.origin}/join`, {
		method: "POST",
		headers: { origin: server.origin, "content-type": "application/json" },
		body: JSON.stringify({ token: path.slice("/join/".length), name }),
	});
	return cookieFrom(answer, GUEST_COOKIE);
}

/** An owner link minted and redeemed; the owner's cookie header. */
export async function signInOwner(server: P2Server): Promise<string> {
	const link = server.mintOwnerLink();
	const answer = await fetch(`${server.origin}/owner/redeem`, {
		method: "POST",
		headers: { origin: server.origin, "content-type": "application/json" },
		body: JSON.stringify({ token: link.slice(link.indexOf("#") + 1) }),
	});
	return cookieFrom(answer, OWNER_COOKIE);
}
