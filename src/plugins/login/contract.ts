import { type } from "../../protocol/ark.ts";
import { defineContract, method } from "../../protocol/contract.ts";
import { lazy } from "../../protocol/lazy.ts";

export const AuthMethod = lazy(() => type("'api_key' | 'oauth'"));
export type AuthMethod = typeof AuthMethod.infer;

export const LoginProvider = lazy(() =>
	type({
		id: "string",
		name: "string",
		/** API-key sign-in, when the provider takes one (its display name). */
		apiKey: type({ name: "string" }).or("null"),
		oauth: type({ name: "string", "label?": "string", subscription: "boolean" }).or("null"),
		/** How it is signed in now: a stored sign-in, or where its credentials come from (an env var name). */
		signedIn: AuthMethod.or("null"),
		source: "string | null",
	}),
);
export type LoginProvider = typeof LoginProvider.infer;

/** What a flow shows: pi-ai's login events, as text (opening or copying a URL is the launcher's, with consent). */
export const LoginEvent = lazy(() =>
	type.or(
		{
			type: "'info'",
			message: "string <= 2000",
			"links?": type({ url: "string <= 4096", "label?": "string <= 200" }).array(),
		},
		{ type: "'auth_url'", url: "string <= 4096", "instructions?": "string <= 2000" },
		{
			type: "'device_code'",
			userCode: "string <= 100",
			verificationUri: "string <= 4096",
			"expiresInSeconds?": "number",
		},
		{ type: "'progress'", message: "string <= 2000" },
	),
);
export type LoginEvent = typeof LoginEvent.infer;

export const LoginPrompt = lazy(() =>
	type({
		id: "string",
		type: "'text' | 'secret' | 'select' | 'manual_code'",
		message: "string <= 2000",
		"placeholder?": "string <= 200",
		"options?": type({ id: "string", label: "string", "description?": "string" }).array(),
	}),
);
export type LoginPrompt = typeof LoginPrompt.infer;

export const LoginFlow = lazy(() =>
	type({
		id: "string",
		provider: "string",
		method: AuthMethod,
		status: "'running' | 'done' | 'failed' | 'cancelled'",
		events: LoginEvent.array().atMostLength(20),
		/** The question waiting for an answer. An answer is never shown back, here or anywhere. */
		prompt: LoginPrompt.or("null"),
		"error?": "string <= 500",
		/**
		 * Done, on a server that had no usable model: the model now chosen for new and open sessions (pi's
		 * "Selected …"), or null when the provider offers none.
		 */
		"selected?": "string <= 400 | null",
		/** Done: where the server keeps the credential (its own path; the login object is the owners'). */
		"savedTo?": "string <= 4096",
	}),
);
export type LoginFlow = typeof LoginFlow.infer;

export const LoginState = lazy(() => type({ providers: LoginProvider.array(), flow: LoginFlow.or("null") }));
export type LoginState = typeof LoginState.infer;

export const StartArgs = lazy(() => type({ provider: "string <= 100", method: AuthMethod }));
export const AnswerArgs = lazy(() => type({ flow: "string <= 64", prompt: "string <= 64", value: "string <= 16384" }));
export const FlowArgs = lazy(() => type({ flow: "string <= 64" }));
export const ProviderArgs = lazy(() => type({ provider: "string <= 100" }));

const owner = { state: LoginState, methods: ["start", "answer", "cancel", "logout"] as const };

/**
 * Signing the server in to model providers (pi's /login and /logout). pi-ai's flows run on the server and
 * the credentials stay there; a client sees providers, flow events and questions, never a credential.
 */
export const loginContract = defineContract({
	name: "login",
	version: 1,
	input: type({}),
	methods: {
		start: method(StartArgs, type({ flow: "string" })),
		answer: method(AnswerArgs, type("null")),
		cancel: method(FlowArgs, type("null")),
		logout: method(ProviderArgs, type("null")),
	},
	variants: { deviceOwner: owner, owner, full: null, view: null },
});
