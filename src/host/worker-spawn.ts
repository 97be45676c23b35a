import { EMBEDDED_ROOT } from "./embedded-root.ts";

/** In the compiled executable the bootstrap is an embedded entry point, compiled to `.js`. */
const BOOTSTRAP =
	EMBEDDED_ROOT !== undefined
		? `${EMBEDDED_ROOT}/src/host/worker-bootstrap.js`
		: new URL("./worker-bootstrap.ts", import.meta.url).href;

/** A bundle the launcher may run: its source and the hash it was served with. */
export interface GuestBundleSource {
	readonly source: string;
	readonly hash: string;
}

/** A worker and what it posted before anyone listened (a prewarmed worker reports errors of its load). */
export interface TakenWorker {
	readonly worker: Worker;
	readonly early: readonly unknown[];
}

interface Spare {
	readonly worker: Worker;
	loaded?: string;
	readonly early: unknown[];
	/** Set when the worker failed before anyone listened: it is not used. */
	failure?: string;
	release(): void;
}

interface SpawnState {
	spare: Spare | undefined;
	/** The bootstrap workers start from, when not the default (from source: a build of it, if kept). */
	bootstrap?: string;
	/** The bundle handed to the prewarmed worker, if any: the launcher offers it to the server before any other. */
	preloaded: GuestBundleSource | undefined;
}

/**
 * One state per process. The executable embeds `main.ts` (which prewarms) and `cli.ts` (which takes the worker)
 * as two entry points, each with its own copy of this module: both copies keep the worker in this one place.
 */
const SLOT = Symbol.for("p2.guest-worker-spawn");
const slots = globalThis as { [SLOT]?: SpawnState };
slots[SLOT] ??= { spare: undefined, preloaded: undefined };
const state: SpawnState = slots[SLOT];

/** Why the prewarmed worker failed before anyone took it, if it did. */
export function spareWorkerFailure(): string | undefined {
	return state.spare?.failure;
}

/** The bundle the prewarmed worker is evaluating (this device's embedded one, or the one kept from last time). */
export function preloadedBundle(): GuestBundleSource | undefined {
	return state.preloaded;
}

/** At most this many early messages are kept; a worker that posts more before it starts loses the rest. */
const MAX_EARLY = 64;

function spawn(): Worker {
	// An empty environment: not even the trusted bootstrap sees the person's variables.
	return new Worker(state.bootstrap ?? BOOTSTRAP, { env: {}, smol: true } as WorkerOptions);
}

function load(worker: Worker, bundle: GuestBundleSource): void {
	worker.postMessage({ kind: "load", bundle: bundle.source });
}

/**
 * Starts the first guest worker before the launcher has its bundle, so that loading `ses` and locking the
 * realm down run beside the launcher's own start (imports, server, bundle fetch) instead of after it. This
 * module imports next to nothing, so calling it costs little on the launcher's path.
 */
export function prewarmWorker(bootstrap?: string): void {
	if (state.spare) return;
	if (bootstrap !== undefined) state.bootstrap = bootstrap;
	const worker = spawn();
	const held: Spare = {
		worker,
		early: [],
		release: () => {
			worker.removeEventListener("message", onMessage);
			worker.removeEventListener("error", onError);
		},
	};
	const onMessage = (event: MessageEvent) => {
		if (held.early.length < MAX_EARLY) held.early.push(event.data);
	};
	const onError = (event: Event) => {
		event.preventDefault?.();
		held.failure ??= (event as ErrorEvent).message || "the worker failed";
	};
	worker.addEventListener("message", onMessage);
	worker.addEventListener("error", onError);
	state.spare = held;
}

/**
 * Hands the prewarmed worker a bundle the launcher expects to be served (this device's embedded one), so it
 * is evaluated while the server starts. If the server serves another, `takeWorker` starts afresh.
 */
export function preloadBundle(bundle: GuestBundleSource): void {
	const spare = state.spare;
	if (!spare || spare.loaded !== undefined) return;
	spare.loaded = bundle.hash;
	state.preloaded = bundle;
	load(spare.worker, bundle);
}

/**
 * In the executable the default bundle is a file inside it: hand it to the prewarmed worker before anything
 * else loads. This device's server (this executable's, or one already running, usually the same version)
 * serves the same bytes; when it serves others, the hash differs and `takeWorker` starts afresh.
 */
export function preloadEmbeddedBundle(): void {
	const path = (globalThis as { P2_EMBEDDED_BUNDLE?: string }).P2_EMBEDDED_BUNDLE;
	if (!path) return;
	try {
		const source = require("node:fs").readFileSync(path, "utf8") as string;
		preloadBundle({ source, hash: new Bun.CryptoHasher("sha256").update(source).digest("hex") });
	} catch {
		// Not fatal: the bundle is fetched from the server as always.
	}
}

/**
 * The launcher ended before a guest took the prewarmed worker (a refused link, an unusable data directory):
 * end it, or it keeps the process alive after the error is printed.
 */
export function discardSpareWorker(): void {
	state.spare?.release();
	state.spare?.worker.terminate();
	state.spare = undefined;
}

/** A worker with `bundle` loaded: the prewarmed one when it fits, else a new one. A worker serves one guest. */
export function takeWorker(bundle: GuestBundleSource): TakenWorker {
	const taken = state.spare;
	state.spare = undefined;
	taken?.release();
	if (taken && !taken.failure && (taken.loaded === undefined || taken.loaded === bundle.hash)) {
		if (taken.loaded === undefined) load(taken.worker, bundle);
		return { worker: taken.worker, early: taken.early };
	}
	taken?.worker.terminate();
	// A bootstrap that failed to load (a broken build kept from source) is not tried again: the default is.
	if (taken?.failure) state.bootstrap = undefined;
	const worker = spawn();
	load(worker, bundle);
	return { worker, early: [] };
}
