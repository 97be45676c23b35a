/**
 * The owner's side of sharing in the UI: `/share` (the share sheet) and who is here now in the footer. The
 * sharing object of the open session is held while an owner has it open; guests never ask for it.
 */

import type { Followed } from "../../guest/follow.ts";
import type { GuestContext, GuestPlugin } from "../../guest/plugin.ts";
import type { ObjectRef } from "../../protocol/object-client.ts";
import { isOwnerRole } from "../../protocol/roles.ts";
import { guestLabel, guestName } from "../../protocol/share-link.ts";
import { type ShareAccess, type SharingState, sharingContract } from "./contract.ts";
import { SharePanel } from "./tui-panel.ts";

export const sharingPlugin: GuestPlugin = {
	name: "sharing",
	register(ctx) {
		const share = new ShareCommands(ctx);
		return () => share.dispose();
	},
};

const LABELS: Record<ShareAccess, string> = { view: "the view-only share link", full: "the full-access share link" };

/** Who is here now, for the footer: connected guests with their access. */
export function presenceText(state: SharingState | undefined): string | undefined {
	const here = state?.guests.filter((g) => g.connected > 0 && !g.blocked) ?? [];
	if (!here.length) return undefined;
	const names = here.map((g) => `${guestName(g.name) || "guest"} (${g.access === "full" ? "full" : "view"})`);
	return `${here.length === 1 ? "guest" : "guests"} here: ${names.join(", ")}`;
}

class ShareCommands {
	readonly #ctx: GuestContext;
	readonly #removals: (() => void)[];
	/** The open session's sharing object, held while an owner has the session open. */
	readonly #sharing: Followed<typeof sharingContract>;
	/** Who was here at the last change of this object (none before its first state: no "joined" for them). */
	#here: Map<string, string> | undefined;

	constructor(ctx: GuestContext) {
		this.#ctx = ctx;
		this.#sharing = ctx.objects.follow(sharingContract, (session) =>
			isOwnerRole(session.role) && session.id ? { session: session.id } : undefined,
		);
		this.#removals = [
			ctx.commands.register({
				id: "p2.share",
				title: "Share this session: links, guests and approval",
				category: "p2",
				requires: { role: "owner", to: "share this session" },
				slash: { name: "share" },
				run: () => this.#open(),
			}),
			this.#sharing.onChange((state, ref) => this.#changed(state, ref)),
		];
	}

	dispose(): void {
		for (const remove of this.#removals) remove();
		this.#sharing.close();
	}

	/** The footer's presence line; undefined clears it. */
	#setPresence(text: string | undefined): void {
		this.#ctx.ui.slots.setStatus("sharing", text);
	}

	/** Guests' messages waiting for approval in the open conversation (the chat's). */
	#conversation() {
		return this.#ctx.services.get("conversation")?.ref;
	}

	/** The sharing object changed, or another (or none) took its place. */
	#changed(state: SharingState | undefined, ref: ObjectRef<typeof sharingContract> | undefined): void {
		if (!state) {
			this.#here = undefined;
			this.#setPresence(undefined);
			return;
		}
		this.#setPresence(presenceText(state));
		if (this.#ctx.ui.selector?.id === "share") this.#ctx.ui.requestRender();
		// Who comes and goes, in the transcript (not for those already here when the session opened).
		const now = new Map(
			state.guests.filter((g) => g.connected > 0 && !g.blocked).map((g) => [g.id, guestLabel(g.name)]),
		);
		const here = this.#here;
		if (here && ref) {
			for (const [id, name] of now) {
				const guest = state.guests.find((g) => g.id === id);
				if (!here.has(id))
					this.#ctx.ui.notice(`${name} joined · ${guest?.access === "full" ? "full access" : "view only"}`);
			}
			for (const [id, name] of here) if (!now.has(id)) this.#ctx.ui.notice(`${name} left`);
		}
		this.#here = now;
	}

	#open(): void {
		const { ui, launcher } = this.#ctx;
		const ref = this.#sharing.ref;
		if (!ref) return ui.notice("Open a session to share it.");
		const act = (work: () => Promise<unknown>) =>
			void work()
				.then(() => ui.requestRender())
				.catch((error: unknown) => {
					ui.fail(error);
				});
		// The server's origin as the launcher reaches it: links are this plus the path the server gives.
		const origin = this.#ctx.start.origin;
		const copy = async (path: string, access: ShareAccess) => {
			const answer = await launcher.request("copy", { text: `${origin}${path}`, label: LABELS[access] });
			if (!answer.ok && answer.error !== "declined") ui.notice(`Not copied: ${answer.error ?? "refused"}`, "warning");
		};
		ui.showSelector(
			"share",
			new SharePanel(ui.theme, {
				state: () => ref.state,
				waiting: () => this.#conversation()?.state?.queue.filter((q) => q.waiting) ?? [],
				// The link is only ever shown on the launcher's own screen, when it asks before copying.
				copyLink: (access) => act(async () => copy((await ref.call("link", { access, confirm: true })).path, access)),
				resetLink: (access) => act(async () => copy((await ref.call("reset", { access })).path, access)),
				setAccess: (guest, access) => act(() => ref.call("setAccess", { guest, access })),
				remove: (guest, block) => act(() => ref.call("remove", { guest, block })),
				setApproval: (on) => act(() => ref.call("setApproval", { on })),
				setGuestForwards: (on) => act(() => ref.call("setGuestForwards", { on })),
				approve: (id) => act(async () => this.#conversation()?.call("approve", { id })),
				reject: (id) => act(async () => this.#conversation()?.call("reject", { id })),
				close: () => ui.closeSelector(),
			}),
		);
	}
}
