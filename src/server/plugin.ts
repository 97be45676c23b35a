/**
 * The server's plugin surface: each plugin's server part (`src/plugins/<name>/server.ts`) exports a
 * `ServerPlugin`, and `register` receives one `ServerContext`: the core's services (catalog, stores, models,
 * settings, events), the object host to serve its contracts on, the HTTP routes, the services plugins offer one
 * another, and the core's hooks. Plugins are listed in `src/server/plugins.ts`.
 */
import type { AgentExtensions } from "./agent/extensions.ts";
import type { CoreServices } from "./core-services.ts";
import type { ObjectHost } from "./objects/host.ts";
import type { Principal } from "./objects/principal.ts";
import type { Routes } from "./routes.ts";
import type { Services } from "./services.ts";

export type { RouteRequest } from "./routes.ts";

/** Who a guest cookie admits now (a principal for one session), or null. */
export type GuestAdmission = (cookie: string) => Principal | null;

export interface ServerContext extends CoreServices {
	readonly host: ObjectHost;
	/** Paths beside the core's; each is checked by the core (Host header, errors) before its handler runs. */
	readonly routes: Routes;
	/** What plugins offer one another, by name; each entry is declared by the plugin that provides it. */
	readonly services: Services;
	/** What plugins add to every conversation's agent: tools and sections of its system prompt. */
	readonly agent: AgentExtensions;
	/**
	 * The core's hook for guests: the plugin that admits them says who a guest cookie admits. The core still
	 * refuses a guest of a session that is gone or archived. One plugin at most provides it.
	 */
	admitGuests(admission: GuestAdmission): void;
}

/** One feature's server part: it serves its contracts on the host and may add HTTP routes of its own. */
export interface ServerPlugin {
	readonly name: string;
	register(ctx: ServerContext): void | Promise<void>;
	close?(): void | Promise<void>;
}
