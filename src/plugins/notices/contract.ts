import { type } from "../../protocol/ark.ts";
import { defineContract, method } from "../../protocol/contract.ts";
import { lazy } from "../../protocol/lazy.ts";

export const MAX_NOTICES = 100;

export const Notice = lazy(() =>
	type({
		id: "string <= 64",
		time: "number",
		level: "'info' | 'warn' | 'error'",
		/** Where it happened: `server`, `session:<id>`, `env:<name>`. */
		source: "string <= 200",
		text: "string <= 2000",
		/** `/retry` can try again what failed. */
		retry: "boolean",
	}),
);
export type Notice = typeof Notice.infer;

export const NoticesState = lazy(() => type({ notices: Notice.array().atMostLength(MAX_NOTICES) }));
export type NoticesState = typeof NoticesState.infer;

export const NoticeArgs = lazy(() => type({ id: "string <= 64" }));

const owner = { state: NoticesState, methods: ["dismiss", "retry"] as const };

/**
 * What the server's owners should act on: a provider refusing its credentials, a full disk, a damaged store
 * moved aside, a session that failed to open. Owners only.
 */
export const noticesContract = defineContract({
	name: "notices",
	version: 1,
	input: type({}),
	methods: {
		dismiss: method(NoticeArgs, type("null")),
		/** Tries again what the notice says failed; the answer says what happened. */
		retry: method(NoticeArgs, type({ message: "string <= 2000" })),
	},
	variants: { deviceOwner: owner, owner, full: null, view: null },
});
