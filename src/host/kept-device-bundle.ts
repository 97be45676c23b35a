/**
 * The UI bundle this device's server served last time, handed to the prewarmed worker to evaluate while the
 * rest of the launcher loads (from source: the executable has its own bundle built in). It runs only if the
 * server still serves it (`takeWorker` compares hashes); this module loads little, as it is read first.
 */
import { BundleCache, deviceBundleKey } from "./bundle-cache.ts";
import { configDir } from "./config-dir.ts";
import { preloadBundle, preloadedBundle } from "./worker-spawn.ts";

export function preloadKeptDeviceBundle(env: Record<string, string | undefined>, dataDir: string): void {
	if (preloadedBundle()) return;
	const kept = new BundleCache(configDir(env)).read(deviceBundleKey(dataDir));
	if (kept) preloadBundle(kept);
}
