import type { ObjectHost } from "./objects/host.ts";
import type { Principal } from "./objects/principal.ts";
import type { ServerServices } from "./services.ts";

export interface ServerContext extends ServerServices {
	readonly host: ObjectHost;
}

/** Who sent an HTTP request, as the core decided it (null: nobody signed in), and whether it came from this origin. */
export interface RouteRequest {
	readonly principal: Principal | null;
	readonly sameOrigin: boolean;
	/** The peer's address, for rate limits. */
	readonly peer: string | undefined;
	/** Cookies set here are marked Secure (TLS, or a TLS proxy in front). */
	readonly secure: boolean;
}

/** One feature's server part: it serves its contracts on the host and may answer HTTP routes of its own. */
export interface ServerPlugin {
	readonly name: string;
	register(ctx: ServerContext): void | Promise<void>;
	/** Answers a request the core did not take, or returns undefined. */
	route?(req: Request, ctx: ServerContext, request: RouteRequest): Response | Promise<Response | undefined> | undefined;
	close?(): void | Promise<void>;
}
