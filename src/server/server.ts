import type { Server } from "bun";
import { EXIT_PATH } from "../protocol/server-info.ts";
import { AgentExtensions } from "./agent/extensions.ts";
import { isLoopbackHostname, isWildcardHostname, ownOrigins, primaryOrigin } from "./auth/own-origins.ts";
import { addOwnerRoutes } from "./auth/owner-routes.ts";
import { ownerSignIns } from "./auth/owner-sign-ins.ts";
import { OwnerStore } from "./auth/owner-store.ts";
import { newToken } from "./auth/tokens.ts";
import { addBundleRoute } from "./bundle-route.ts";
import {
	type CoreServices,
	createServices,
	damagedReporter,
	logOptions,
	type ServicesOptions,
} from "./core-services.ts";
import { type GuestBundle, GuestBundleLoader } from "./guest-bundle-loader.ts";
import { json, problem } from "./http-util.ts";
import { describe, ServerLog } from "./log.ts";
import { ObjectHost } from "./objects/host.ts";
import type { Principal } from "./objects/principal.ts";
import type { GuestAdmission, ServerContext, ServerPlugin } from "./plugin.ts";
import { Relays } from "./relays.ts";
import { RequestGate } from "./request-gate.ts";
import { Routes } from "./routes.ts";
import { ServerInfoFile } from "./server-info-file.ts";
import { Services } from "./services.ts";
import { type SocketData, Sockets } from "./sockets.ts";
import { ensurePrivateDir } from "./store/data-dir.ts";
import { type DataDirLock, lockDataDir } from "./store/data-dir-lock.ts";

export type { GuestBundle } from "./guest-bundle-loader.ts";

export interface ServerOptions extends ServicesOptions {
	readonly dataDir: string;
	readonly hostname?: string;
	readonly port?: number;
	readonly tls?: { readonly cert: string; readonly key: string };
	/** Serve plain HTTP on a non-loopback address because a TLS proxy sits in front. */
	readonly behindProxy?: boolean;
	/** The origin clients use when it is not the bound address's (behind a proxy, or bound to every address). */
	readonly publicOrigin?: string;
	readonly plugins: readonly ServerPlugin[];
	readonly bundle?: () => Promise<GuestBundle>;
	/** Development mode: owners may have the guest bundle rebuilt from the sources while the server runs. */
	readonly devReload?: boolean;
	/** Write server.json (port + device token) so this device's launchers can find the server. */
	readonly advertise?: boolean;
	/** Bytes that may wait for one client before it is closed as too slow; SOCKET_BUFFER_LIMIT by default. */
	readonly socketBufferLimit?: number;
	/** Which build of p2 this is, for server.json. */
	readonly build?: string;
	/**
	 * A server a launcher started (`p2 serve --device`): server.json says so, and this device's owner may ask
	 * it to make way (for another build); the answer says whether it will.
	 */
	readonly onExitRequest?: () => "stopping" | "busy";
}

export interface P2Server {
	readonly origin: string;
	readonly port: number;
	readonly deviceToken: string;
	readonly ctx: ServerContext;
	mintOwnerLink(): string;
	stop(): Promise<void>;
}

/** Bytes that may wait for one slow client before it is closed (CLOSE_CODES.tooSlow) rather than sent more. */
export const SOCKET_BUFFER_LIMIT = 16 * 1024 * 1024;
export class ServerConfigError extends Error {
	override name = "ServerConfigError";
}

export async function startServer(options: ServerOptions): Promise<P2Server> {
	const hostname = options.hostname ?? "127.0.0.1";
	if (!isLoopbackHostname(hostname) && !options.tls && !options.behindProxy) {
		throw new ServerConfigError(
			`refusing to serve plain HTTP on ${hostname}: pass --tls-cert and --tls-key, or --behind-proxy when a TLS proxy is in front`,
		);
	}
	// Same-origin checks need the origin clients use; it is never taken from a request's Host header.
	if (options.publicOrigin === undefined && (options.behindProxy || isWildcardHostname(hostname))) {
		throw new ServerConfigError(
			`${options.behindProxy ? "behind a proxy" : `listening on every address (${hostname})`} the server cannot tell its own origin: pass --public-origin with the origin clients use`,
		);
	}
	ensurePrivateDir(options.dataDir);
	// Before any store is opened: a second server's recovery would take this one's live runs for crashed ones.
	const lock = lockDataDir(options.dataDir);
	try {
		return await serve(options, hostname, lock);
	} catch (error) {
		lock.release();
		throw error;
	}
}

async function serve(options: ServerOptions, hostname: string, lock: DataDirLock): Promise<P2Server> {
	const log = new ServerLog(options.dataDir, logOptions(options, options.env ?? process.env));
	const owners = OwnerStore.open(options.dataDir, damagedReporter(log));
	let core: CoreServices | undefined;
	const registered: ServerPlugin[] = [];
	// At stop, or when the server cannot start (a plugin failed, the port is taken): nothing stays open.
	const closeAll = async () => {
		for (const plugin of registered.splice(0)) await plugin.close?.();
		await core?.close();
		owners.close();
	};
	try {
		core = await createServices(options, log);
		return await listen(options, hostname, lock, { owners, core, registered, closeAll });
	} catch (error) {
		await closeAll().catch((problem) => log.error("server", describe("closing after a failed start failed", problem)));
		throw error;
	}
}

interface Opened {
	readonly owners: OwnerStore;
	readonly core: CoreServices;
	/** Plugins are added as they register, so that one that fails half way is closed too. */
	readonly registered: ServerPlugin[];
	closeAll(): Promise<void>;
}

async function listen(
	options: ServerOptions,
	hostname: string,
	lock: DataDirLock,
	{ owners, core, registered, closeAll }: Opened,
): Promise<P2Server> {
	const host = new ObjectHost();
	host.problem = (text, error, notice) => core.log.error("server", describe(text, error), notice);
	const routes = new Routes();
	const relays = new Relays();
	const bundles = new GuestBundleLoader(options.bundle);
	let admission: GuestAdmission | undefined;
	const ctx: ServerContext = {
		...core,
		host,
		routes,
		relays,
		owners: ownerSignIns(owners, host),
		services: new Services(),
		agent: new AgentExtensions(),
		guestBundle: options.devReload ? bundles.dev : null,
		admitGuests(admit) {
			if (admission) throw new Error("guests are admitted by one plugin only");
			admission = admit;
		},
	};
	// The core's routes first: a plugin cannot take one of their paths.
	addOwnerRoutes(routes, owners, host);
	addBundleRoute(routes, () => bundles.load());
	const onExitRequest = options.onExitRequest;
	if (onExitRequest) {
		routes.add(EXIT_PATH, {
			POST(_req, { principal }) {
				if (principal?.role !== "deviceOwner") return problem(403, "only this device's owner");
				return onExitRequest() === "stopping" ? json({ stopping: true }, 202) : problem(409, "runs are live");
			},
		});
	}
	for (const plugin of options.plugins) {
		registered.push(plugin);
		await plugin.register(ctx);
	}
	const deviceToken = newToken();
	core.log.addSecret(deviceToken);
	const scheme = options.tls ? "https" : "http";

	// A guest of a session that is gone or archived is nobody, whatever the plugin that admitted them says.
	const guest = (cookie: string): Principal | null => {
		const principal = admission?.(cookie) ?? null;
		const record = principal?.session === undefined ? undefined : core.catalog.get(principal.session);
		return principal && record && !record.archived ? principal : null;
	};
	const secure = options.tls !== undefined || options.behindProxy === true;
	const gate = new RequestGate<SocketData>(core.log, { deviceToken, owners, guest }, secure);

	const sockets = new Sockets({
		host,
		relays,
		bufferLimit: options.socketBufferLimit ?? SOCKET_BUFFER_LIMIT,
		principalOf: (req, srv) => gate.principalOf(req, srv),
		sameOrigin: (req) => gate.sameOrigin(req),
		keepSpareStore: () => core.stores.keepSpare(),
	});
	const served: Record<string, (req: Request, srv: Server<SocketData>) => Promise<Response | undefined>> = {};
	for (const [path, upgrade] of sockets.upgrades()) served[path] = gate.checked(upgrade);
	for (const [path, handler] of routes.entries()) {
		served[path] = gate.checked((req, srv) => handler(req, gate.requestOf(req, srv)));
	}

	const server: Server<SocketData> = Bun.serve<SocketData>({
		hostname,
		port: options.port ?? 0,
		...(options.tls ? { tls: { cert: Bun.file(options.tls.cert), key: Bun.file(options.tls.key) } } : {}),
		routes: served,
		fetch: gate.checked(() => problem(404, "not found")),
		websocket: sockets.handlers(),
	});
	const binding = { scheme, hostname, port: server.port ?? 0, publicOrigin: options.publicOrigin } as const;
	gate.listening(ownOrigins(binding));
	const origin = primaryOrigin(binding);
	lock.setOrigin(origin);
	core.log.info("server", `listening on ${origin}${options.build ? ` (build ${options.build})` : ""}`);
	const advertised = options.advertise ? new ServerInfoFile(options.dataDir, deviceToken) : undefined;
	if (advertised) {
		advertised.write({
			origin,
			port: server.port ?? 0,
			pid: process.pid,
			deviceToken,
			...(options.build ? { build: options.build } : {}),
			...(options.onExitRequest ? { auto: true } : {}),
		});
		// A launcher that finds this server asks for the UI bundle next: have it ready (read, hashed) by then.
		if (options.bundle) setImmediate(() => void bundles.load().catch(() => {}));
	}

	return {
		origin,
		port: server.port ?? 0,
		deviceToken,
		ctx,
		mintOwnerLink: () => `${origin}/owner#${owners.mintLink()}`,
		async stop() {
			server.stop(true);
			await closeAll();
			advertised?.remove();
			lock.release();
		},
	};
}
