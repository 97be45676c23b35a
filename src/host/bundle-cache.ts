/**
 * The last UI bundle each server served, kept by the launcher (0600) so the next start can evaluate it in the
 * prewarmed worker at once, before the server is even reached. The server then confirms it (If-None-Match):
 * only a bundle whose hash the server still serves is ever started; another is fetched and replaces it.
 */
import { join } from "node:path";
import { readBounded } from "./bounded-read.ts";
import { writePrivateText } from "./private-file.ts";
import type { GuestBundleSource } from "./worker-spawn.ts";

const MAX_BUNDLE_BYTES = 8 * 1024 * 1024;

/** The key of this device's server's kept bundle: its data directory. */
export function deviceBundleKey(dataDir: string): string {
	return `device:${dataDir}`;
}

export class BundleCache {
	readonly #dir: string;

	constructor(configDir: string) {
		this.#dir = join(configDir, "bundles");
	}

	/** The bundle last kept for `server` (an origin, or this device's data directory), if any. */
	read(server: string): GuestBundleSource | undefined {
		const read = readBounded(this.#path(server), MAX_BUNDLE_BYTES);
		if (read.kind !== "text" || !read.text) return undefined;
		return { source: read.text, hash: new Bun.CryptoHasher("sha256").update(read.text).digest("hex") };
	}

	write(server: string, bundle: GuestBundleSource): void {
		try {
			writePrivateText(this.#path(server), bundle.source);
		} catch {
			// Not kept: the next start fetches it, as always.
		}
	}

	#path(server: string): string {
		return join(this.#dir, `${new Bun.CryptoHasher("sha256").update(server).digest("hex").slice(0, 32)}.js`);
	}
}

/**
 * The first bundle of a run through the cache: the kept one if the server still serves it (304), else the
 * server's, kept for next time. Later checks (a newer bundle, a reload) go to the server as before. `known`:
 * a bundle the launcher already read (the one it preloaded), offered instead of reading the kept one again.
 */
export function cachedFetch(
	cache: BundleCache,
	server: string,
	fetch: (runningHash?: string) => Promise<GuestBundleSource | undefined>,
	known?: GuestBundleSource,
): (runningHash?: string) => Promise<GuestBundleSource | undefined> {
	return async (runningHash) => {
		if (runningHash !== undefined) return fetch(runningHash);
		const kept = known ?? cache.read(server);
		const fresh = await fetch(kept?.hash);
		if (fresh === undefined) return kept;
		if (fresh.hash !== kept?.hash) cache.write(server, fresh);
		return fresh;
	};
}
