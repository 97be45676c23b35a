import type { Database } from "bun:sqlite";
import type { Provider, RetryPolicy } from "@earendil-works/pi-ai";
import { loadModelCatalog, type ModelCatalog } from "./agent/models.ts";
import { keepModelsLive } from "./agent/models-live.ts";
import { ENVS_FILE } from "./env/config.ts";
import { Environments } from "./env/environments.ts";
import { EventBus } from "./events.ts";
import { watchFileIn } from "./file-watch.ts";
import { SERVER_SETTINGS_FILE, ServerSettings } from "./settings.ts";
import type { Catalog } from "./store/catalog.ts";
import { openCatalog } from "./store/catalog-rebuild.ts";
import { ensurePrivateDir } from "./store/data-dir.ts";
import { SessionStores } from "./store/session-stores.ts";

export interface ServicesOptions {
	readonly dataDir: string;
	/** Where provider credentials are read from; the process environment by default. */
	readonly env?: Record<string, string | undefined>;
	/** Automatic retry of transient provider errors; else pi's `retry` in the server's settings.json, else pi's defaults. */
	readonly retry?: RetryPolicy;
	/** Idle session stores are closed after this long. */
	readonly storeIdleMs?: number;
	/** Model providers beside pi-ai's and models.json's (tests: a fake provider with its own sign-in). */
	readonly providers?: readonly Provider[];
	/** Given the catalog's and each session store's connection once open (tests: a full disk, simulated). */
	readonly configureDatabase?: (db: Database, path: string) => void;
}

/** What the core builds once per server and every plugin's server part may use. */
export interface CoreServices {
	readonly dataDir: string;
	/** The server's environment (`HOME`, `PI_CODING_AGENT_DIR`…); a test server's own. */
	readonly env: Readonly<Record<string, string | undefined>>;
	readonly catalog: Catalog;
	readonly stores: SessionStores;
	readonly models: ModelCatalog;
	readonly settings: ServerSettings;
	readonly bus: EventBus;
	/** Where sessions' tools run: this device and the SSH machines of `<data>/envs.json`. */
	readonly environments: Environments;
	/** The retry policy now (the server's settings.json may change while it runs). */
	retry(): RetryPolicy;
	close(): Promise<void>;
}

export const DEFAULT_RETRY: RetryPolicy = { enabled: true, maxRetries: 3, baseDelayMs: 2000 };

export async function createServices(options: ServicesOptions): Promise<CoreServices> {
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
	const bus = new EventBus();
	const environments = new Environments({ dataDir: options.dataDir, home: (options.env ?? process.env).HOME });
	if (environments.problem) console.error(`p2 server: ${environments.problem}`);
	const stopWatchingEnvs = watchFileIn(options.dataDir, ENVS_FILE, () => {
		environments.reload();
		if (environments.problem) console.error(`p2 server: ${environments.problem}`);
	});
	const stopWatchingModels = keepModelsLive(models, options.dataDir, bus);
	// The server runs on after its launcher: an edit of its settings.json applies without a restart.
	const stopWatchingSettings = watchFileIn(options.dataDir, SERVER_SETTINGS_FILE, () => {
		settings.reload();
		if (settings.problem) console.error(`p2 server: ${settings.problem}`);
	});
	return {
		dataDir: options.dataDir,
		env: options.env ?? process.env,
		catalog,
		stores,
		models,
		settings,
		bus,
		environments,
		retry: () => options.retry ?? { ...DEFAULT_RETRY, ...settings.value.retry },
		async close() {
			stopWatchingModels();
			stopWatchingSettings();
			stopWatchingEnvs();
			await environments.close();
			stores.closeAll();
			catalog.close();
		},
	};
}
