import { type } from "../../protocol/ark.ts";
import { defineContract, method } from "../../protocol/contract.ts";
import { ENV_NAME } from "../../protocol/env-name.ts";
import { lazy } from "../../protocol/lazy.ts";

/** An environment's name (`local` is this device). */
export const EnvName = lazy(() => type(ENV_NAME));

export const HostKeyView = lazy(() => type({ type: "string <= 64", fingerprint: "string <= 128" }));
export type HostKeyView = typeof HostKeyView.infer;

export const TestView = lazy(() =>
	type({
		ok: "boolean",
		/** "Connected in 31 ms · home /home/me", or the error. */
		message: "string <= 2000",
		at: "number",
		/** Set when the host key stopped the connection: what the machine presents and what is trusted now. */
		"hostKey?": {
			status: "'unknown' | 'changed'",
			offered: HostKeyView.array().atMostLength(16),
			known: HostKeyView.array().atMostLength(16),
		},
	}),
);
export type TestView = typeof TestView.infer;

export const EnvView = lazy(() =>
	type({
		name: EnvName,
		/** `user@host:port`; "this device" for local. */
		address: "string <= 400",
		/** envs.json's default directory, if any. */
		directory: "string <= 4096 | null",
		/** The last test (Ctrl+T), kept while the server runs. */
		test: TestView.or("null"),
	}),
);
export type EnvView = typeof EnvView.infer;

export const EnvsState = lazy(() =>
	type({
		/** This device first, then envs.json's machines in its order. */
		environments: EnvView.array().atMostLength(101),
		/** What is wrong with envs.json, when it could not be used. */
		problem: "string <= 4000 | null",
	}),
);
export type EnvsState = typeof EnvsState.infer;

export const MAX_LISTED = 2000;

export const ListArgs = lazy(() => type({ env: EnvName, path: "0 < string <= 4096" }));
export const ListResult = lazy(() =>
	type({
		/** The canonical path listed (`~` expanded, links resolved). */
		path: "string <= 4096",
		home: "string <= 4096",
		/** Only folders: this lists where a session may go. */
		folders: type("string <= 1024").array().atMostLength(MAX_LISTED),
		truncated: "boolean",
	}),
);
export type ListResult = typeof ListResult.infer;

const owner = { state: EnvsState, methods: ["test", "acceptKey", "forgetKey", "listDirectory"] as const };

/**
 * Where sessions can run: this device and the SSH machines of envs.json. Owners test a connection, review and
 * accept or forget a host key, and list a machine's folders to choose a session's directory. Guests never
 * acquire it.
 */
export const envsContract = defineContract({
	name: "envs",
	version: 1,
	input: type({}),
	methods: {
		test: method(
			lazy(() => type({ name: EnvName })),
			TestView,
		),
		/** Trusts exactly the keys the last test offered (the fingerprints shown); the machine's old keys go. */
		acceptKey: method(
			lazy(() => type({ name: EnvName, fingerprints: type("string <= 128").array().atMostLength(16) })),
			type("null"),
		),
		forgetKey: method(
			lazy(() => type({ name: EnvName })),
			type("null"),
		),
		listDirectory: method(ListArgs, ListResult),
	},
	variants: { deviceOwner: owner, owner, full: null, view: null },
});
