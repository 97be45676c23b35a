import { BUNDLE_PATH } from "../protocol/server-info.ts";
import { problem } from "./http-util.ts";
import type { Routes } from "./routes.ts";
import type { GuestBundle } from "./server.ts";

const MAX_BUNDLE_BYTES = 8 * 1024 * 1024;

/** The guest bundle, for anyone signed in: HEAD says whether they are, GET sends it (304 when it is unchanged). */
export function addBundleRoute(routes: Routes, load: () => Promise<GuestBundle>): void {
	routes.add(BUNDLE_PATH, {
		async GET(req, { principal }) {
			if (!principal) return problem(401, "sign in first");
			const bundle = await load();
			if (bundle.source.length > MAX_BUNDLE_BYTES) return problem(500, "the guest bundle is too large");
			if (req.headers.get("if-none-match") === `"${bundle.hash}"`) return new Response(null, { status: 304 });
			return new Response(bundle.source, {
				headers: { "content-type": "text/javascript", etag: `"${bundle.hash}"`, "x-p2-bundle-hash": bundle.hash },
			});
		},
		HEAD(_req, { principal }) {
			if (!principal) return problem(401, "sign in first");
			return new Response(null, { status: 200, headers: { "cache-control": "no-store" } });
		},
	});
}
