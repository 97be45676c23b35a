/**
 * The server's plugin surface: each plugin's server part (`src/plugins/<name>/server.ts`) exports a
 * `ServerPlugin`, and `register` receives one `ServerContext`: the core's services (catalog, stores, models,
 * settings, events), the object host to serve its contracts on, the HTTP routes, the services plugins offer one
 * another, and the core's hooks. Plugins are listed in `src/server/plugins.ts`.
 */
import type { AgentExtensions } from "./agent/extensions.ts";
import type { OwnerSignIn } from "./auth/owner-store.ts";
import type { CoreServices } from "./core-services.ts";
import type { ObjectHost } from "./objects/host.ts";
import type { Principal } from "./objects/principal.ts";
import type { Relays } from "./relays.ts";
import type { Routes } from "./routes.ts";
import type { Services } from "./services.ts";

export { checkWith } from "./checks.ts";
export type { RouteRequest } from "./routes.ts";

/** Who a guest cookie admits now (a principal for one session), or null. */
export type GuestAdmission = (cookie: string) => Principal | null;

/** The owner sign-ins (owner cookies) of this server, for the owner's own UI; cookies never leave it. */
export interface OwnerSignIns {
	list(): OwnerSignIn[];
	/** Ends one sign-in now: its cookie is refused and its connections close. False when there is none. */
	signOut(id: string): boolean;
	/**
	 * Ends every owner sign-in but `keep` (the caller's own, which its launcher ends); this device's owner has no
	 * cookie and stays. How many ended.
	 */
	signOutAll(keep?: string): number;
	/** A one-time owner link's path (`/owner#token`), valid for a day. */
	mintLink(): string;
}

/** The guest bundle of a server in development mode, rebuilt from the sources on request. */
export interface DevBundle {
	/** Builds the bundle again (when its sources changed); launchers take a new one at their next check. */
	rebuild(): Promise<{ hash: string; changed: boolean }>;
}

export interface ServerContext extends CoreServices {
	/** Present on a server started in development mode only. */
	readonly guestBundle: DevBundle | null;
	/** The owner sign-ins; only plugins serving owners use it. */
	readonly owners: OwnerSignIns;
	readonly host: ObjectHost;
	/** Paths beside the core's; each is checked by the core (Host header, errors) before its handler runs. */
	readonly routes: Routes;
	/** WebSocket byte relays beside the object socket; the core checks each before it opens. */
	readonly relays: Relays;
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
	/**
	 * Schemas the plugin checks often (stored rows, files read at start), by key: precompiled with the server's
	 * validators when it is built, so `checkWith(key, schema, data)` needs no arktype for a value that fits.
	 */
	readonly checkedSchemas?: () => ReadonlyMap<string, unknown>;
	register(ctx: ServerContext): void | Promise<void>;
	close?(): void | Promise<void>;
}
