import { BUNDLE_PATH } from "../protocol/server-info.ts";
import { plainLine, TransportError, trustedFetch } from "./trusted-http.ts";
import type { GuestBundleSource } from "./worker-spawn.ts";

export const MAX_BUNDLE_BYTES = 8 * 1024 * 1024;

/**
 * The server's UI bundle: a fixed route, the launcher's credentials, at most 8 MiB, hashed as received. Given
 * the hash of the bundle running now, answers `undefined` when the server still serves that one (304).
 */
export async function fetchGuestBundle(
	origin: string,
	credentials: Record<string, string>,
	runningHash?: string,
): Promise<GuestBundleSource | undefined> {
	const response = await trustedFetch({
		origin,
		path: BUNDLE_PATH,
		headers: runningHash ? { ...credentials, "if-none-match": `"${runningHash}"` } : credentials,
		maxBytes: MAX_BUNDLE_BYTES,
		timeoutMs: 30_000,
	});
	if (response.status === 304 && runningHash) return undefined;
	if (response.status !== 200) {
		throw new TransportError(
			`${origin}: the UI bundle was refused (${response.status} ${plainLine(response.body, 120)})`,
		);
	}
	const hash = new Bun.CryptoHasher("sha256").update(response.body).digest("hex");
	return { source: response.body, hash };
}
