import { type } from "../../protocol/ark.ts";
import { defineContract, method } from "../../protocol/contract.ts";
import { lazy } from "../../protocol/lazy.ts";

export const DevState = lazy(() =>
	type({
		/** The server runs from source and can rebuild its UI. */
		available: "boolean",
		/** The bundle built by the latest /dev-reload; null before one. */
		built: "string <= 128 | null",
	}),
);
export type DevState = typeof DevState.infer;

const owner = { state: DevState, methods: ["reload"] as const };

/** `/dev-reload`: a server in development mode rebuilds its guest bundle from the sources. Owners only. */
export const devContract = defineContract({
	name: "dev",
	version: 1,
	input: type({}),
	methods: {
		/** Rebuilds the bundle; `changed` says whether its sources had changed since the one served. */
		reload: method(type({}), type({ changed: "boolean", message: "string <= 500" })),
	},
	variants: { deviceOwner: owner, owner, full: null, view: null },
});
