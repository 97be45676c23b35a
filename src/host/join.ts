import { own } from "../protocol/own-keys.ts";
import { BUNDLE_PATH, GUEST_COOKIE } from "../protocol/server-info.ts";
import { guestName, JOIN_PATH } from "../protocol/share-link.ts";
import type { LauncherConfig } from "./config.ts";
import { checkLinkOrigin, SignInError } from "./sign-in.ts";
import { serverReason, trustedFetch } from "./trusted-http.ts";

/** `https://host/join/<43-character token>`: nothing may follow, and the origin must be the one given, if any. */
export function parseJoinLink(link: string, origin?: string): { origin: string; token: string } {
	let url: URL;
	try {
		url = new URL(link.trim());
	} catch {
		throw new SignInError("That is not a share link (expected https://host/join/…).");
	}
	const token = JOIN_PATH.exec(url.pathname)?.[1];
	if (!token || url.search || url.hash || url.username || url.password) {
		throw new SignInError("That is not a share link (expected https://host/join/…).");
	}
	checkLinkOrigin(url, "share", origin);
	return { origin: url.origin, token };
}

export function isJoinLink(text: string): boolean {
	try {
		return JOIN_PATH.test(new URL(text.trim()).pathname);
	} catch {
		return false;
	}
}

/**
 * Redeems a share link: POST /join with the exact Origin and the guest cookie already stored for this origin
 * (so a rejoin keeps the identity). The cookie goes into the launcher's config only; the link is not kept.
 */
export async function redeemJoinLink(
	config: LauncherConfig,
	link: string,
	name: string,
	expectedOrigin?: string,
): Promise<{ origin: string; session: string; role: string }> {
	const { origin, token } = parseJoinLink(link, expectedOrigin);
	const clean = guestName(name);
	if (!clean) throw new SignInError("A name is needed.");
	const stored = config.get(origin).guest?.cookie;
	const response = await trustedFetch({
		origin,
		path: "/join",
		method: "POST",
		headers: { "content-type": "application/json", ...(stored ? guestCookieHeader(stored) : {}) },
		body: JSON.stringify({ token, name: clean }),
		maxBytes: 2048,
	});
	if (response.status !== 200) {
		throw new SignInError(`Joining was refused: ${serverReason(response.body, response.status)}`);
	}
	const cookie = new RegExp(`(?:^|[;,]\\s*)${GUEST_COOKIE}=([A-Za-z0-9_-]{20,200})`).exec(
		response.headers.get("set-cookie") ?? "",
	)?.[1];
	let answer: unknown;
	try {
		answer = JSON.parse(response.body);
	} catch {}
	const session = own(answer, "session");
	if (!cookie || typeof session !== "string" || !/^[0-9a-f-]{36}$/.test(session)) {
		throw new SignInError("Joining failed: the server's answer was not understood.");
	}
	config.update(origin, (c) => ({ ...c, guest: { cookie, session } }));
	return { origin, session, role: own(answer, "role") === "full" ? "full" : "view" };
}

/** Is the stored guest cookie still admitted? HEAD on the bundle route, which every admitted principal may fetch. */
export async function checkGuestCookie(origin: string, cookie: string): Promise<"ok" | "ended"> {
	const response = await trustedFetch({
		origin,
		path: BUNDLE_PATH,
		method: "HEAD",
		headers: guestCookieHeader(cookie),
	});
	if (response.status === 401 || response.status === 403) return "ended";
	if (response.status !== 200) throw new SignInError(`${origin} answered HTTP ${response.status}`);
	return "ok";
}

export function guestCookieHeader(cookie: string): Record<string, string> {
	return { cookie: `${GUEST_COOKIE}=${cookie}` };
}

export function forgetGuestCookie(config: LauncherConfig, origin: string): void {
	config.update(origin, ({ guest: _, ...rest }) => rest);
}
