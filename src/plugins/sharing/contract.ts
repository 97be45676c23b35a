import { type } from "../../protocol/ark.ts";
import { SessionId } from "../../protocol/common.ts";
import { defineContract, method } from "../../protocol/contract.ts";
import { lazy } from "../../protocol/lazy.ts";

export { guestName, JOIN_PATH, MAX_GUEST_NAME } from "../../protocol/share-link.ts";

export const ShareAccess = lazy(() => type("'view' | 'full'"));
export type ShareAccess = typeof ShareAccess.infer;

export const SharedGuest = lazy(() =>
	type({
		id: "string",
		name: "string",
		access: ShareAccess,
		since: "number",
		/** Open connections now: zero when the guest is away. */
		connected: "number.integer >= 0",
		blocked: "boolean",
	}),
);
export type SharedGuest = typeof SharedGuest.infer;

export const SharingState = lazy(() =>
	type({
		/** When each link was made; null while the session has none. The tokens are only given by `link`. */
		links: { view: "number | null", full: "number | null" },
		guests: SharedGuest.array(),
		/** A full guest's message waits in the queue until the owner accepts it. */
		approval: "boolean",
		/** Full guests may open the session's ports on their own computers (/ports). */
		guestForwards: "boolean",
		/** The machine the session's tools run on: what a full guest may run commands on. */
		machine: "string",
	}),
);
export type SharingState = typeof SharingState.infer;

export const LinkArgs = lazy(() => type({ access: ShareAccess, "confirm?": "boolean" }));
export const LinkResult = lazy(() => type({ path: "string" }));
export const ResetArgs = lazy(() => type({ access: ShareAccess }));
export const SetAccessArgs = lazy(() => type({ guest: "string <= 64", access: ShareAccess }));
export const RemoveArgs = lazy(() => type({ guest: "string <= 64", block: "boolean" }));
export const ApprovalArgs = lazy(() => type({ on: "boolean" }));
export const GuestForwardsArgs = lazy(() => type({ on: "boolean" }));

const methods = ["link", "reset", "setAccess", "remove", "setApproval", "setGuestForwards"] as const;
const variant = { state: SharingState, methods };

/**
 * The owner's side of sharing one session: its view-only and full-access links, the guests they admitted
 * (with presence), and approval mode. Guests never hold it.
 */
export const sharingContract = defineContract({
	name: "sharing",
	version: 1,
	input: lazy(() => type({ session: SessionId })),
	methods: {
		/** The link's path, made on first use. A first full-access link needs `confirm` (guests can run commands). */
		link: method(LinkArgs, LinkResult),
		/** A new token: the old link and every guest it admitted are done at once. */
		reset: method(ResetArgs, LinkResult),
		setAccess: method(SetAccessArgs, type("null")),
		/** Ends a guest's access now; `block` also refuses their cookie if they come back with the link. */
		remove: method(RemoveArgs, type("null")),
		setApproval: method(ApprovalArgs, type("null")),
		/** Lets full guests forward the session's ports to their computers, or stops it (open forwards close). */
		setGuestForwards: method(GuestForwardsArgs, type("null")),
	},
	variants: { deviceOwner: variant, owner: variant, full: null, view: null },
});
