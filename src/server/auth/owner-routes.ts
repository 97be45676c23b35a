/**
 * An owner's sign-in over HTTP: an owner link is redeemed for an owner cookie, which can be checked and
 * signed out (this device's cookie, or every owner's at once). Only from the server's own origin.
 */
import { type } from "../../protocol/ark.ts";
import { OWNER_COOKIE } from "../../protocol/server-info.ts";
import { json, problem, readBoundedText, readCookie, signInCookie } from "../http-util.ts";
import type { ObjectHost } from "../objects/host.ts";
import type { Principal } from "../objects/principal.ts";
import type { RouteRequest, Routes } from "../routes.ts";
import type { OwnerStore } from "./owner-store.ts";
import { TOKEN_PATTERN } from "./tokens.ts";

const RedeemBody = type({ token: TOKEN_PATTERN });
const MAX_REDEEM_BODY = 2048;
const OWNER_COOKIE_MAX_AGE = 365 * 24 * 60 * 60;

export function addOwnerRoutes(routes: Routes, owners: OwnerStore, host: ObjectHost): void {
	const closeConnections = (match: (p: Principal) => boolean) => host.reprincipal(match, () => null);

	routes.add("/owner/redeem", {
		async POST(req, request) {
			if (!request.sameOrigin) return problem(403, "cross-origin request refused");
			const text = await readBoundedText(req, MAX_REDEEM_BODY);
			let body: unknown;
			try {
				body = text === null ? null : JSON.parse(text);
			} catch {
				body = null;
			}
			const parsed = RedeemBody(body);
			if (parsed instanceof type.errors) return problem(400, "expected {token}");
			const redeemed = owners.redeem(parsed.token, Date.now(), {
				...(request.peer ? { address: request.peer } : {}),
				...(req.headers.get("user-agent") ? { agent: req.headers.get("user-agent") ?? "" } : {}),
			});
			if (!redeemed) return problem(403, "this owner link is not valid (used, expired or unknown)");
			const cookie = signInCookie(OWNER_COOKIE, redeemed.cookie, {
				maxAge: OWNER_COOKIE_MAX_AGE,
				secure: request.secure,
			});
			return json({ role: "owner" }, 200, { "set-cookie": cookie });
		},
	});

	routes.add("/owner/check", (req) => {
		const cookie = readCookie(req, OWNER_COOKIE);
		const login = cookie ? owners.check(cookie) : null;
		return login ? json({ role: "owner" }) : problem(401, "not signed in");
	});

	const logout = (req: Request, request: RouteRequest, everyone: boolean): Response => {
		if (!request.sameOrigin) return problem(403, "cross-origin request refused");
		const cookie = readCookie(req, OWNER_COOKIE);
		const login = cookie ? owners.check(cookie) : null;
		if (!cookie || !login) return problem(401, "not signed in");
		if (everyone) {
			owners.logoutAll();
			closeConnections((p) => p.role === "owner");
		} else {
			owners.logout(cookie);
			closeConnections((p) => p.id === `owner:${login.id}`);
		}
		return json({ ok: true }, 200, {
			"set-cookie": signInCookie(OWNER_COOKIE, "", { maxAge: 0, secure: request.secure }),
		});
	};
	routes.add("/owner/logout", { POST: (req, request) => logout(req, request, false) });
	routes.add("/owner/logout-all", { POST: (req, request) => logout(req, request, true) });
}
