import { hostname } from "node:os";
import { type } from "arktype";
import { ProtocolError } from "../../protocol/codes.ts";
import { GUEST_COOKIE } from "../../protocol/server-info.ts";
import { readCookie } from "../../server/auth/principals.ts";
import { TOKEN_PATTERN } from "../../server/auth/tokens.ts";
import { json, problem, readBoundedText } from "../../server/http-util.ts";
import { LiveState } from "../../server/objects/live-state.ts";
import type { Handlers, OpenedObject } from "../../server/objects/object-impl.ts";
import type { Principal } from "../../server/objects/principal.ts";
import type { RouteRequest, ServerContext, ServerPlugin } from "../../server/plugin.ts";
import { guestName, JOIN_PATH, type SharingState, sharingContract } from "./contract.ts";

const JoinBody = type({ token: TOKEN_PATTERN, name: "string <= 400" });
const MAX_JOIN_BODY = 2048;
/** Join attempts per address per window; a wrong token costs the same as a right one. */
const JOIN_ATTEMPTS = 20;
const JOIN_WINDOW_MS = 60_000;
const GUEST_COOKIE_MAX_AGE = 30 * 24 * 60 * 60;

/** A fixed window per peer address; the table is bounded so a flood of addresses cannot grow it without end. */
class JoinLimiter {
	#windows = new Map<string, { start: number; count: number }>();

	allow(peer: string, now = Date.now()): boolean {
		let w = this.#windows.get(peer);
		if (!w || now - w.start >= JOIN_WINDOW_MS) {
			if (this.#windows.size >= 10_000) this.#sweep(now);
			w = { start: now, count: 0 };
			this.#windows.set(peer, w);
		}
		w.count++;
		return w.count <= JOIN_ATTEMPTS;
	}

	#sweep(now: number): void {
		for (const [peer, w] of this.#windows) if (now - w.start >= JOIN_WINDOW_MS) this.#windows.delete(peer);
		if (this.#windows.size >= 10_000) this.#windows.clear();
	}
}

const guestId = (id: string) => `guest:${id}`;

/** The owner's view of each shared session, live while an owner has it open. */
class SharingObjects {
	#ctx: ServerContext;
	#open = new Map<string, { live: LiveState<SharingState>; holders: number }>();
	readonly #machine = hostname();

	constructor(ctx: ServerContext) {
		this.#ctx = ctx;
		ctx.host.onPresence(() => {
			for (const session of this.#open.keys()) this.refresh(session);
		});
	}

	#state(session: string): SharingState {
		const { shares, host } = this.#ctx;
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
		const { shares, host, bus } = this.#ctx;
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
		};
	}
}

/**
 * `POST /join {token, name}`: a share link redeemed for a guest cookie bound to that link's session. Only from
 * the server's own origin, with a small body, a few attempts per address; every wrong token gets the same answer.
 */
async function join(
	req: Request,
	ctx: ServerContext,
	request: RouteRequest,
	limiter: JoinLimiter,
	objects: SharingObjects,
): Promise<Response> {
	if (req.method !== "POST") return problem(405, "POST");
	if (!request.sameOrigin) return problem(403, "cross-origin request refused");
	if (!limiter.allow(request.peer ?? "unknown")) return problem(429, "too many attempts; wait a minute");
	const text = await readBoundedText(req, MAX_JOIN_BODY);
	let body: unknown = null;
	try {
		body = text === null ? null : JSON.parse(text);
	} catch {}
	const parsed = JoinBody(body);
	if (parsed instanceof type.errors) return problem(400, "expected {token, name}");
	const name = guestName(parsed.name);
	if (!name) return problem(400, "a display name is needed");
	const redeemed = ctx.shares.redeem(parsed.token, name, readCookie(req, GUEST_COOKIE));
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
	const setCookie = `${GUEST_COOKIE}=${cookie}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${GUEST_COOKIE_MAX_AGE}${request.secure ? "; Secure" : ""}`;
	return json({ role: guest.access, session: guest.session, name: guest.name }, 200, { "set-cookie": setCookie });
}

export function sharingPlugin(): ServerPlugin {
	const limiter = new JoinLimiter();
	let objects: SharingObjects | undefined;
	return {
		name: "sharing",
		register(ctx) {
			const served = new SharingObjects(ctx);
			objects = served;
			ctx.host.serve(sharingContract, {
				open: ({ session }) => served.open(session),
			});
		},
		route(req, ctx, request) {
			const path = new URL(req.url).pathname;
			if (path === "/join" && objects) return join(req, ctx, request, limiter, objects);
			// A share link opened in a browser: how to use it, the same words whether or not the token is good.
			if (JOIN_PATH.test(path) && (req.method === "GET" || req.method === "HEAD")) {
				return new Response("This is a p2 share link. Join the session from a terminal: p2 --join <this link>\n", {
					headers: {
						"content-type": "text/plain; charset=utf-8",
						"cache-control": "no-store",
						"referrer-policy": "no-referrer",
					},
				});
			}
			return undefined;
		},
	};
}
