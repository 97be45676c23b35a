import { OWNER_COOKIE } from "../protocol/server-info.ts";
import type { LauncherConfig } from "./config.ts";
import { serverReason, trustedFetch } from "./trusted-http.ts";

export class SignInError extends Error {
	override name = "SignInError";
}

/** `https://host/owner#<43-character token>`: the origin must be the server's, nothing else may follow. */
export function parseOwnerLink(link: string, origin?: string): { origin: string; token: string } {
	let url: URL;
	try {
		url = new URL(link.trim());
	} catch {
		throw new SignInError("That is not an owner link (expected https://host/owner#…).");
	}
	const token = url.hash.slice(1);
	if (url.pathname !== "/owner" || url.search || url.username || url.password || !/^[A-Za-z0-9_-]{43}$/.test(token)) {
		throw new SignInError("That is not an owner link (expected https://host/owner#…).");
	}
	checkLinkOrigin(url, "owner", origin);
	return { origin: url.origin, token };
}

/** A link's server: https (plain http only for this device), and the expected one when one was named. */
export function checkLinkOrigin(url: URL, kind: "owner" | "share", origin: string | undefined): void {
	const name = kind === "owner" ? "Owner" : "Share";
	if (url.protocol !== "https:" && !(url.protocol === "http:" && isLoopbackHost(url.hostname))) {
		throw new SignInError(`${name} links must use https (http only for this device).`);
	}
	if (origin && url.origin !== origin) throw new SignInError(`That ${kind} link is for ${url.origin}, not ${origin}.`);
}

export function isLoopbackHost(host: string): boolean {
	return host === "localhost" || host === "127.0.0.1" || host === "[::1]";
}

/** Redeems an owner link: POST with the exact Origin; the cookie goes into the launcher's config only. */
export async function redeemOwnerLink(config: LauncherConfig, link: string, expectedOrigin?: string): Promise<string> {
	const { origin, token } = parseOwnerLink(link, expectedOrigin);
	const response = await trustedFetch({
		origin,
		path: "/owner/redeem",
		method: "POST",
		headers: { "content-type": "application/json" },
		body: JSON.stringify({ token }),
		maxBytes: 2048,
	});
	if (response.status !== 200) {
		throw new SignInError(`Sign-in refused: ${serverReason(response.body, response.status)}`);
	}
	const cookie = new RegExp(`(?:^|[;,]\\s*)${OWNER_COOKIE}=([A-Za-z0-9_-]{20,200})`).exec(
		response.headers.get("set-cookie") ?? "",
	)?.[1];
	if (!cookie) throw new SignInError("Sign-in failed: the server sent no cookie.");
	config.update(origin, (c) => ({ ...c, cookie }));
	return origin;
}

/** Is the stored owner cookie still good? */
export async function checkOwnerCookie(origin: string, cookie: string): Promise<boolean> {
	const response = await trustedFetch({
		origin,
		path: "/owner/check",
		headers: { cookie: `${OWNER_COOKIE}=${cookie}` },
	});
	return response.status === 200;
}

export function cookieHeader(cookie: string): Record<string, string> {
	return { cookie: `${OWNER_COOKIE}=${cookie}` };
}
