import type { Database } from "bun:sqlite";
import type { Provider, RetryPolicy } from "@earendil-works/pi-ai";
import { loadModelCatalog, type ModelCatalog } from "./agent/models.ts";
import { ShareStore } from "./auth/share-store.ts";
import { EventBus } from "./events.ts";
import { ServerSettings } from "./settings.ts";
import type { Catalog } from "./store/catalog.ts";
import { openCatalog } from "./store/catalog-rebuild.ts";
import { ensurePrivateDir } from "./store/data-dir.ts";
import { SessionStores } from "./store/session-stores.ts";

export interface ServicesOptions {
	readonly dataDir: string;
	/** Where provider credentials are read from; the process environment by default. */
	readonly env?: Record<string, string | undefined>;
	/** Automatic retry of transient provider errors (pi's defaults: 3 retries from 2 s). */
	readonly retry?: RetryPolicy;
	/** Idle session stores are closed after this long. */
	readonly storeIdleMs?: number;
	/** Model providers beside pi-ai's and models.json's (tests: a fake provider with its own sign-in). */
	readonly providers?: readonly Provider[];
	/** Given the catalog's and each session store's connection once open (tests: a full disk, simulated). */
	readonly configureDatabase?: (db: Database, path: string) => void;
}

/** What every plugin's server part may use. Built once per server. */
export interface ServerServices {
	readonly dataDir: string;
	readonly catalog: Catalog;
	readonly stores: SessionStores;
	readonly models: ModelCatalog;
	readonly settings: ServerSettings;
	readonly bus: EventBus;
	readonly retry: RetryPolicy;
	/** Share links, guests and approval mode, per session. */
	readonly shares: ShareStore;
	close(): Promise<void>;
}

export const DEFAULT_RETRY: RetryPolicy = { enabled: true, maxRetries: 3, baseDelayMs: 2000 };

export async function createServices(options: ServicesOptions): Promise<ServerServices> {
	ensurePrivateDir(options.dataDir);
	const configure = options.configureDatabase ? { configure: options.configureDatabase } : {};
	// Each session's store keeps a copy of its catalog row, so the catalog can be rebuilt from the stores.
	let catalog: Catalog | undefined;
	const stores = new SessionStores(options.dataDir, {
		idleMs: options.storeIdleMs,
		describe: (id) => catalog?.get(id),
		...configure,
	});
	try {
		catalog = openCatalog(options.dataDir, { mirror: (record) => stores.get(record.id).setMeta(record), ...configure });
	} catch (error) {
		stores.closeAll();
		throw error;
	}
	const shares = ShareStore.open(options.dataDir);
	const models = await loadModelCatalog({
		dataDir: options.dataDir,
		env: options.env ?? process.env,
		...(options.providers ? { providers: options.providers } : {}),
	});
	const settings = new ServerSettings(options.dataDir);
	// The server's log names what is wrong with its configuration once, at start; the owners' UI says it too.
	for (const problem of [...models.problems(), ...(settings.problem ? [settings.problem] : [])]) {
		console.error(`p2 server: ${problem}`);
	}
	return {
		dataDir: options.dataDir,
		catalog,
		stores,
		models,
		settings,
		bus: new EventBus(),
		retry: options.retry ?? DEFAULT_RETRY,
		shares,
		async close() {
			stores.closeAll();
			catalog.close();
			shares.close();
		},
	};
}
