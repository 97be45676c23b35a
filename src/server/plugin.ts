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

/*
 * What plugins use of the core, named here: a plugin's server part imports this one server module (biome's
 * override for src/plugins enforces it). The objects it serves (LiveState, handlers, principals), sessions'
 * stores and directories, its own files and database in the data directory, the agent's engine, tools,
 * prompt, models and credentials, environments, HTTP and relays, tokens and the log.
 */
export { ConversationEngine, type EngineEvent, type RunOutcome } from "./agent/conversation-engine.ts";
export { AUTH_FILE, FileCredentialStore } from "./agent/credentials.ts";
export {
	type AgentScope,
	type InputDecision,
	type PersonInput,
	PLUGIN_ENTRY_TYPE,
	type PluginEntry,
} from "./agent/extensions.ts";
export { MODELS_FILE, thinkingLevelsOf } from "./agent/models.ts";
export {
	buildSystemPrompt,
	type ContextFile,
	loadContextFiles,
	loadRemoteContextFiles,
} from "./agent/system-prompt.ts";
export { runCommand } from "./agent/tools/bash.ts";
export { createTools } from "./agent/tools/index.ts";
export { hashToken, newToken, TOKEN_PATTERN } from "./auth/tokens.ts";
export { checkWith } from "./checks.ts";
export {
	EnvConnectionError,
	type Environment,
	pathProblem,
	type Ran,
	type RunOptions,
} from "./env/environment.ts";
export type { TestResult } from "./env/environments.ts";
export { SshEnvironment, shellQuote } from "./env/ssh.ts";
export { json, problem, readBoundedBytes, readBoundedText, readCookie, signInCookie } from "./http-util.ts";
export { fileLabel, readJsonFile } from "./json-file.ts";
export { describe, type LogEntry, type ServerLog } from "./log.ts";
export { LiveState } from "./objects/live-state.ts";
export { type Handlers, type OpenedObject, refuseEvery } from "./objects/object-impl.ts";
export { isOwner, maySeeSession, type Principal } from "./objects/principal.ts";
export { copyPrivateDir } from "./private-copy.ts";
export type { Relay, RelayAccept, RelayPeer } from "./relays.ts";
export type { RouteRequest } from "./routes.ts";
export { checkDirectory, isDirectory } from "./session-directory.ts";
export type { SessionRecord } from "./store/catalog.ts";
export { writePrivateFile } from "./store/data-dir.ts";
export { DuplicateRequestError, StoreClosedError } from "./store/errors.ts";
export type {
	ConversationRow,
	ConversationStatus,
	EntryInput,
	QueuedRow,
	SessionStore,
	StoredEntry,
} from "./store/session-store.ts";
export { openReplacingDamaged } from "./store/sqlite.ts";

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
