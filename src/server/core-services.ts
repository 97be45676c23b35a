import type { Database } from "bun:sqlite";
import type { Provider, RetryPolicy } from "@earendil-works/pi-ai";
import { loadModelCatalog, type ModelCatalog } from "./agent/models.ts";
import { keepModelsLive } from "./agent/models-live.ts";
import { ENVS_FILE } from "./env/config.ts";
import { Environments } from "./env/environments.ts";
import { EventBus } from "./events.ts";
import { watchFileIn } from "./file-watch.ts";
import { type LogOptions, ServerLog } from "./log.ts";
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
	/** The server's log file: its bounds and level (tests: small files, an injected clock). */
	readonly log?: LogOptions;
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
	/** The server's structured log, and the notices for its owners (entries with a notice tag). */
	readonly log: ServerLog;
	/** The retry policy now (the server's settings.json may change while it runs). */
	retry(): RetryPolicy;
	close(): Promise<void>;
}

export const DEFAULT_RETRY: RetryPolicy = { enabled: true, maxRetries: 3, baseDelayMs: 2000 };

const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL/i;
const LEVELS = new Set(["debug", "info", "warn", "error"]);

/** The log's options: the caller's, with `P2_LOG_LEVEL` from the server's environment for the level. */
export function logOptions(options: ServicesOptions, env: Record<string, string | undefined>): LogOptions {
	const level = env.P2_LOG_LEVEL?.trim().toLowerCase();
	if (options.log?.level || !level || !LEVELS.has(level)) return options.log ?? {};
	return { ...options.log, level: level as LogOptions["level"] & string };
}

/** A damaged store moved aside is a notice for the owner, one per file. */
export function damagedReporter(log: ServerLog): (message: string) => void {
	return (message) => {
		const moved = / could not be read .* moved to /.test(message);
		if (!moved) return log.warn("server", message);
		log.warn("server", message, { key: `store.damaged:${message.slice(0, message.indexOf(" could not be read"))}` });
	};
}

export async function createServices(options: ServicesOptions, given?: ServerLog): Promise<CoreServices> {
	ensurePrivateDir(options.dataDir);
	const env = options.env ?? process.env;
	const log = given ?? new ServerLog(options.dataDir, logOptions(options, env));
	// Keys and tokens the server was given in its environment are never written, whatever code logs them.
	for (const [name, value] of Object.entries(env)) if (value && SECRET_NAME.test(name)) log.addSecret(value);
	const reportDamaged = damagedReporter(log);
	const configure = options.configureDatabase ? { configure: options.configureDatabase } : {};
	// Each session's store keeps a copy of its catalog row, so the catalog can be rebuilt from the stores.
	let catalog: Catalog | undefined;
	const stores = new SessionStores(options.dataDir, {
		idleMs: options.storeIdleMs,
		describe: (id) => catalog?.get(id),
		reportDamaged,
		...configure,
	});
	try {
		catalog = openCatalog(
			options.dataDir,
			{ mirror: (record) => stores.get(record.id).setMeta(record), ...configure },
			reportDamaged,
		);
	} catch (error) {
		stores.closeAll();
		throw error;
	}
	const models = await loadModelCatalog({
		dataDir: options.dataDir,
		env,
		...(options.providers ? { providers: options.providers } : {}),
	});
	const settings = new ServerSettings(options.dataDir);
	// The server's log names what is wrong with its configuration once, at start; the owners' UI says it too.
	for (const problem of [...models.problems(), ...(settings.problem ? [settings.problem] : [])]) {
		log.warn("server", problem);
	}
	const bus = new EventBus();
	const environments = new Environments({
		dataDir: options.dataDir,
		home: env.HOME,
		// The envs plugin makes notices of it.
		onConnection: (name, trouble) => bus.emit({ type: "env.connection", name, trouble: trouble?.message ?? null }),
	});
	if (environments.problem) log.warn("server", environments.problem);
	const stopWatchingEnvs = watchFileIn(options.dataDir, ENVS_FILE, () => {
		environments.reload();
		if (environments.problem) log.warn("server", environments.problem);
	});
	const stopWatchingModels = keepModelsLive(models, options.dataDir, bus, (problem) => log.warn("server", problem));
	// The server runs on after its launcher: an edit of its settings.json applies without a restart.
	const stopWatchingSettings = watchFileIn(options.dataDir, SERVER_SETTINGS_FILE, () => {
		settings.reload();
		if (settings.problem) log.warn("server", settings.problem);
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
		log,
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
