/**
 * The server's HTTP routes, the core's and the plugins', by path. The core hands them to `Bun.serve` and
 * runs its checks (the Host header, errors) around each one, so a route cannot be added without them.
 */
import { problem } from "./http-util.ts";
import type { Principal } from "./objects/principal.ts";

/** Who sent an HTTP request, as the core decided it, and whether it came from this server's own origin. */
export interface RouteRequest {
	/** Null when nobody is signed in; decided on first read. */
	readonly principal: Principal | null;
	readonly sameOrigin: boolean;
	/** The peer's address, for rate limits. */
	readonly peer: string | undefined;
	/** Cookies set here are marked Secure (TLS, or a TLS proxy in front). */
	readonly secure: boolean;
}

export type RouteHandler = (req: Request, request: RouteRequest) => Response | Promise<Response>;

export type HttpMethod = "GET" | "HEAD" | "POST" | "PUT" | "PATCH" | "DELETE";

/** One handler for every method, or one per method (any other is answered 405, naming those there are). */
export type Route = RouteHandler | { readonly [M in HttpMethod]?: RouteHandler };

export class Routes {
	readonly #routes = new Map<string, RouteHandler>();

	/** `path` as `Bun.serve` reads it: exact, or with `:name` segments. A path is routed once. */
	add(path: string, route: Route): void {
		if (!path.startsWith("/")) throw new Error(`route ${path} does not start with /`);
		if (this.#routes.has(path)) throw new Error(`route ${path} is added twice`);
		this.#routes.set(path, byMethod(route));
	}

	entries(): [string, RouteHandler][] {
		return [...this.#routes];
	}
}

function byMethod(route: Route): RouteHandler {
	if (typeof route === "function") return route;
	const allowed = Object.keys(route).join(" or ");
	return (req, request) => {
		const handler = Object.hasOwn(route, req.method) ? route[req.method as HttpMethod] : undefined;
		return handler ? handler(req, request) : problem(405, allowed);
	};
}
