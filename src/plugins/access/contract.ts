import { type } from "../../protocol/ark.ts";
import { defineContract } from "../../protocol/contract.ts";
import { lazy } from "../../protocol/lazy.ts";
import { Role } from "../../protocol/roles.ts";

export const AccessState = lazy(() =>
	type({
		role: Role,
		/** The id the server stamps on what this caller authors. */
		id: "string",
		name: "string",
		/** Guests are admitted to one session; owners see every session. */
		session: "string | null",
	}),
);
export type AccessState = typeof AccessState.infer;

const variant = { state: AccessState, methods: [] as const };

/** Who the caller is: the role the server admitted them with, and their display name. */
export const accessContract = defineContract({
	name: "access",
	version: 1,
	input: type({}),
	methods: {},
	variants: { deviceOwner: variant, owner: variant, full: variant, view: variant },
});
