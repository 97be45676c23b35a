/**
 * In the compiled executable the bootstrap is an embedded entry point, named by its path from the repo root
 * and compiled to `.js`. It is named by its absolute path inside the executable's own file system, found from
 * `Bun.main`: `import.meta.url` there is the build machine's source path, and a file at that path (or, for a
 * relative name, in the working directory) would otherwise run with the worker's powers.
 */
const EMBEDDED_ROOT = /^(\/\$bunfs\/root|B:[\\/]~BUN[\\/]root)[\\/]/.exec(Bun.main)?.[1];
const BOOTSTRAP =
	EMBEDDED_ROOT !== undefined
		? `${EMBEDDED_ROOT}/src/host/worker-bootstrap.js`
		: new URL("./worker-bootstrap.ts", import.meta.url).href;

/** A bundle the launcher may run: its source and the hash it was served with. */
export interface GuestBundleSource {
	readonly source: string;
	readonly hash: string;
}

let spare: { worker: Worker; loaded?: string } | undefined;

function spawn(): Worker {
	// An empty environment: not even the trusted bootstrap sees the person's variables.
	return new Worker(BOOTSTRAP, { env: {}, smol: true } as WorkerOptions);
}

function load(worker: Worker, bundle: GuestBundleSource): void {
	worker.postMessage({ kind: "load", bundle: bundle.source });
}

/**
 * Starts the first guest worker before the launcher has its bundle, so that loading `ses` and locking the
 * realm down run beside the launcher's own start (imports, server, bundle fetch) instead of after it. This
 * module imports nothing, so calling it costs nothing on the launcher's path.
 */
export function prewarmWorker(): void {
	spare ??= { worker: spawn() };
}

/**
 * Hands the prewarmed worker a bundle the launcher expects to be served (this device's embedded one), so it
 * is evaluated while the server starts. If the server serves another, `takeWorker` starts afresh.
 */
export function preloadBundle(bundle: GuestBundleSource): void {
	if (!spare || spare.loaded !== undefined) return;
	spare.loaded = bundle.hash;
	load(spare.worker, bundle);
}

/** A worker with `bundle` loaded: the prewarmed one when it fits, else a new one. A worker serves one guest. */
export function takeWorker(bundle: GuestBundleSource): Worker {
	const taken = spare;
	spare = undefined;
	if (taken && (taken.loaded === undefined || taken.loaded === bundle.hash)) {
		if (taken.loaded === undefined) load(taken.worker, bundle);
		return taken.worker;
	}
	taken?.worker.terminate();
	const worker = spawn();
	load(worker, bundle);
	return worker;
}
