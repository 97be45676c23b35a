import { type } from "../../protocol/ark.ts";
import { defineContract, method } from "../../protocol/contract.ts";
import { lazy } from "../../protocol/lazy.ts";

export const ProviderRow = lazy(() =>
	type({
		id: "string <= 100",
		name: "string <= 200",
		/** From the server's models.json rather than pi-ai's built-ins. */
		custom: "boolean",
		models: "number.integer >= 0",
		/** How it is signed in: a stored API key or OAuth sign-in, a key from the environment or models.json. */
		auth: "'api_key' | 'oauth' | 'env' | 'config' | null",
		/** Where the credential comes from (an environment variable's name), never its value. */
		source: "string <= 200 | null",
		/** When a stored OAuth sign-in's token expires (it is refreshed on use). */
		expires: "number | null",
		/** The provider refused the credentials lately (the run's error), until it answers again. */
		failing: "string <= 500 | null",
	}),
);
export type ProviderRow = typeof ProviderRow.infer;

export const ProvidersState = lazy(() => type({ providers: ProviderRow.array().atMostLength(500) }));
export type ProvidersState = typeof ProvidersState.infer;

const owner = { state: ProvidersState, methods: ["refresh"] as const };

/** pi-ai's providers and models.json's with their state, next to /login and /logout. Owners only. */
export const providersContract = defineContract({
	name: "providers",
	version: 1,
	input: type({}),
	methods: { refresh: method(type({}), type("null")) },
	variants: { deviceOwner: owner, owner, full: null, view: null },
});
