import { BUNDLE_PATH } from "../protocol/server-info.ts";
import { plainLine, TransportError, trustedFetch } from "./trusted-http.ts";
import type { GuestBundleSource } from "./worker-spawn.ts";

export const MAX_BUNDLE_BYTES = 8 * 1024 * 1024;

/** The server's UI bundle: a fixed route, the launcher's credentials, at most 8 MiB, hashed as received. */
export async function fetchGuestBundle(
	origin: string,
	credentials: Record<string, string>,
): Promise<GuestBundleSource> {
	const response = await trustedFetch({
		origin,
		path: BUNDLE_PATH,
		headers: credentials,
		maxBytes: MAX_BUNDLE_BYTES,
		timeoutMs: 30_000,
	});
	if (response.status !== 200) {
		throw new TransportError(
			`${origin}: the UI bundle was refused (${response.status} ${plainLine(response.body, 120)})`,
		);
	}
	const hash = new Bun.CryptoHasher("sha256").update(response.body).digest("hex");
	return { source: response.body, hash };
}
