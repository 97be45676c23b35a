import { type } from "../../protocol/ark.ts";
import { defineContract, method } from "../../protocol/contract.ts";
import { lazy } from "../../protocol/lazy.ts";

export const SignIn = lazy(() =>
	type({
		id: "string <= 64",
		createdAt: "number",
		lastUsedAt: "number",
		/** The address it was made from and the client's name for itself, as reported (shown as data). */
		address: "string <= 64 | null",
		agent: "string <= 120 | null",
		/** The sign-in this connection uses. */
		current: "boolean",
	}),
);
export type SignIn = typeof SignIn.infer;

export const DevicesState = lazy(() => type({ signIns: SignIn.array().atMostLength(1000) }));
export type DevicesState = typeof DevicesState.infer;

const owner = { state: DevicesState, methods: ["signOut", "signOutAll", "link"] as const };

/**
 * The owner sign-ins of this server (owner links redeemed for cookies): list, sign out, and a one-time owner
 * link for a new device. Owners only. This device's own sign-out goes through the launcher, which holds the cookie.
 */
export const devicesContract = defineContract({
	name: "devices",
	version: 1,
	input: type({}),
	methods: {
		signOut: method(
			lazy(() => type({ id: "string <= 64" })),
			type("null"),
		),
		/** Every other owner sign-in (this one is the launcher's to end); how many ended. */
		signOutAll: method(type({}), type({ ended: "number.integer >= 0" })),
		/** A one-time owner link's path, valid for a day; shown only on the launcher's screen. */
		link: method(type({}), type({ path: "string <= 200" })),
	},
	variants: { deviceOwner: owner, owner, full: null, view: null },
});
