/**
 * What every request meets before its route: only a host name of this server's is answered (DNS rebinding),
 * a failure is logged and answered 500, and who the request comes from is resolved once, when a route asks.
 */
import type { Server } from "bun";
import type { OwnOrigins } from "./auth/own-origins.ts";
import { type PrincipalSources, resolvePrincipal } from "./auth/principals.ts";
import { problem } from "./http-util.ts";
import { describe, type ServerLog } from "./log.ts";
import type { Principal } from "./objects/principal.ts";
import type { RouteRequest } from "./routes.ts";

type Answer<D> = (req: Request, srv: Server<D>) => Response | undefined | Promise<Response | undefined>;

export class RequestGate<D> {
	readonly #log: ServerLog;
	readonly #sources: PrincipalSources;
	readonly #secure: boolean;
	/** Set once the server listens (the port may be chosen then); no request arrives before. */
	#own: OwnOrigins | undefined;

	constructor(log: ServerLog, sources: PrincipalSources, secure: boolean) {
		this.#log = log;
		this.#sources = sources;
		this.#secure = secure;
	}

	listening(own: OwnOrigins): void {
		this.#own = own;
	}

	sameOrigin(req: Request): boolean {
		return this.#own?.isOwnOrigin(req.headers.get("origin")) === true;
	}

	principalOf(req: Request, srv: Server<D>): Principal | null {
		return resolvePrincipal(req, srv.requestIP(req)?.address, this.#sources);
	}

	/** A route's view of the request; its principal is resolved when first asked for. */
	requestOf(req: Request, srv: Server<D>): RouteRequest {
		const peer = srv.requestIP(req)?.address;
		const sources = this.#sources;
		let principal: { value: Principal | null } | undefined;
		return {
			get principal() {
				principal ??= { value: resolvePrincipal(req, peer, sources) };
				return principal.value;
			},
			sameOrigin: this.sameOrigin(req),
			peer,
			secure: this.#secure,
		};
	}

	checked(answer: Answer<D>): (req: Request, srv: Server<D>) => Promise<Response | undefined> {
		return async (req, srv) => {
			try {
				if (this.#own?.acceptsHost(req.headers.get("host")) !== true) {
					return problem(
						403,
						"this server does not answer to that host name (through a tunnel or proxy, serve with --public-origin)",
					);
				}
				return await answer(req, srv);
			} catch (error) {
				this.#log.error("server", describe(`request ${new URL(req.url).pathname} failed`, error));
				return problem(500, "internal error");
			}
		};
	}
}
