/**
 * Joining over HTTP: `POST /join {token, name}` redeems a share link for a guest cookie bound to that link's
 * session; `/join/<token>` opened in a browser says how to use the link.
 */
import { type } from "../../protocol/ark.ts";
import { RateWindow } from "../../protocol/rate-window.ts";
import { GUEST_COOKIE } from "../../protocol/server-info.ts";
import {
	json,
	type Principal,
	problem,
	readBoundedText,
	readCookie,
	type ServerContext,
	signInCookie,
	TOKEN_PATTERN,
} from "../../server/plugin.ts";
import { guestName, JOIN_PATH } from "./contract.ts";
import type { ShareStore } from "./share-store.ts";
import { guestId, type SharingObjects } from "./sharing-objects.ts";

const JoinBody = type({ token: TOKEN_PATTERN, name: "string <= 400" });
const MAX_JOIN_BODY = 2048;
/** Join attempts per address per window; a wrong token costs the same as a right one. */
const JOIN_ATTEMPTS = 20;
const JOIN_WINDOW_MS = 60_000;
const GUEST_COOKIE_MAX_AGE = 30 * 24 * 60 * 60;

/** Join attempts per address in windows counted from the server's start (at most 10,000 addresses a window). */
export function joinLimiter(now: () => number = performance.now.bind(performance)): RateWindow {
	const start = now();
	return new RateWindow(JOIN_WINDOW_MS, { now: () => now() - start });
}

export function addJoinRoutes(
	ctx: ServerContext,
	shares: ShareStore,
	objects: SharingObjects,
	limiter: RateWindow,
): void {
	// Only from the server's own origin, with a small body, a few attempts per address; every wrong token gets
	// the same answer.
	ctx.routes.add("/join", {
		async POST(req, request) {
			if (!request.sameOrigin) return problem(403, "cross-origin request refused");
			if (!limiter.take(request.peer ?? "unknown", 1, JOIN_ATTEMPTS)) {
				return problem(429, "too many attempts; wait a minute");
			}
			const text = await readBoundedText(req, MAX_JOIN_BODY);
			let body: unknown = null;
			try {
				body = text === null ? null : JSON.parse(text);
			} catch {}
			const parsed = JoinBody(body);
			if (parsed instanceof type.errors) return problem(400, "expected {token, name}");
			const name = guestName(parsed.name);
			if (!name) return problem(400, "a display name is needed");
			const redeemed = shares.redeem(parsed.token, name, readCookie(req, GUEST_COOKIE));
			const record = "guest" in redeemed ? ctx.catalog.get(redeemed.guest.session) : undefined;
			if (!("guest" in redeemed) || !record || record.archived) {
				if ("refused" in redeemed && redeemed.refused === "blocked")
					return problem(403, "the owner removed you from this session");
				return problem(403, "this share link is not valid (reset, ended or unknown)");
			}
			const { guest, cookie } = redeemed;
			// A rejoin with another link may change this guest's access: their open connections follow.
			ctx.host.reprincipal(
				(p) => p.id === guestId(guest.id),
				(p): Principal => ({ ...p, role: guest.access, name: guest.name }),
			);
			objects.refresh(guest.session);
			const setCookie = signInCookie(GUEST_COOKIE, cookie, { maxAge: GUEST_COOKIE_MAX_AGE, secure: request.secure });
			return json({ role: guest.access, session: guest.session, name: guest.name }, 200, { "set-cookie": setCookie });
		},
	});

	// A share link opened in a browser: how to use it, the same words whether or not the token is good.
	const page = (req: Request) => {
		if (!JOIN_PATH.test(new URL(req.url).pathname)) return problem(404, "not found");
		return new Response("This is a p2 share link. Join the session from a terminal: p2 --join <this link>\n", {
			headers: {
				"content-type": "text/plain; charset=utf-8",
				"cache-control": "no-store",
				"referrer-policy": "no-referrer",
			},
		});
	};
	ctx.routes.add("/join/:token", { GET: page, HEAD: page });
}
