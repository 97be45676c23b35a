import type { ObjectHost } from "./objects/host.ts";
import type { ServerServices } from "./services.ts";

export interface ServerContext extends ServerServices {
	readonly host: ObjectHost;
}

/** One feature's server part: it serves its contracts on the host and may answer HTTP routes of its own. */
export interface ServerPlugin {
	readonly name: string;
	register(ctx: ServerContext): void | Promise<void>;
	/** Answers a request the core did not take, or returns undefined. */
	route?(req: Request, ctx: ServerContext): Response | Promise<Response> | undefined;
	close?(): void | Promise<void>;
}
