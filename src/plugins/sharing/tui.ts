/**
 * The owner's side of sharing in the UI: `/share` (the share sheet) and who is here now in the footer. The
 * sharing object of the open session is held while an owner has it open; guests never ask for it.
 */
import type { Component } from "@earendil-works/pi-tui";
import type { CommandRegistry } from "../../guest/commands.ts";
import type { ObjectClient, ObjectRef } from "../../protocol/object-client.ts";
import { isOwnerRole, type Role } from "../../protocol/roles.ts";
import { guestLabel, guestName } from "../../protocol/share-link.ts";
import type { ThemeRef } from "../../ui/theme/theme-ref.ts";
import type { StatusLineData } from "../../ui/transcript/status-line.ts";
import { type ShareAccess, type SharingState, sharingContract } from "./contract.ts";
import { SharePanel, type WaitingMessage } from "./tui-panel.ts";

export interface ShareContext {
	readonly theme: ThemeRef;
	readonly client: ObjectClient;
	/** The server's origin as the launcher reaches it: links are this plus the path the server gives. */
	readonly origin: string;
	role(): Role | undefined;
	session(): string | undefined;
	/** Guests' messages waiting for approval in the open conversation, and the owner's answers to them. */
	waiting(): readonly WaitingMessage[];
	approve(id: string): Promise<unknown>;
	reject(id: string): Promise<unknown>;
	showSelector(id: string, component: Component): void;
	closeSelector(): void;
	selector(): string | undefined;
	requestRender(): void;
	notice(text: string, tone?: StatusLineData["tone"]): void;
	/** The footer's presence line; undefined clears it. */
	setPresence(text: string | undefined): void;
	copy(text: string, label: string): Promise<{ ok: boolean; error?: string }>;
}

const LABELS: Record<ShareAccess, string> = { view: "the view-only share link", full: "the full-access share link" };

/** Who is here now, for the footer: connected guests with their access. */
export function presenceText(state: SharingState | undefined): string | undefined {
	const here = state?.guests.filter((g) => g.connected > 0 && !g.blocked) ?? [];
	if (!here.length) return undefined;
	const names = here.map((g) => `${guestName(g.name) || "guest"} (${g.access === "full" ? "full" : "view"})`);
	return `${here.length === 1 ? "guest" : "guests"} here: ${names.join(", ")}`;
}

export class ShareCommands {
	readonly #ctx: ShareContext;
	#ref: ObjectRef<typeof sharingContract> | undefined;
	#session: string | undefined;

	constructor(commands: CommandRegistry, ctx: ShareContext) {
		this.#ctx = ctx;
		commands.register({
			id: "p2.share",
			title: "Share this session: links, guests and approval",
			category: "p2",
			when: "owner",
			slash: { name: "share" },
			run: () => this.#open(),
		});
	}

	/** The open session or the role changed: hold that session's sharing object while an owner has it open. */
	follow(): void {
		const session = isOwnerRole(this.#ctx.role()) ? this.#ctx.session() : undefined;
		if (session === this.#session) return;
		this.#ref?.close();
		this.#ref = undefined;
		this.#session = session;
		this.#ctx.setPresence(undefined);
		if (!session) return;
		const ref = this.#ctx.client.open(sharingContract, { session });
		this.#ref = ref;
		let here: Map<string, string> | undefined;
		ref.onChange((state) => {
			if (this.#ref !== ref) return;
			this.#ctx.setPresence(presenceText(state));
			if (this.#ctx.selector() === "share") this.#ctx.requestRender();
			// Who comes and goes, in the transcript (not for those already here when the session opened).
			const now = new Map(
				(state?.guests ?? []).filter((g) => g.connected > 0 && !g.blocked).map((g) => [g.id, guestLabel(g.name)]),
			);
			if (here) {
				for (const [id, name] of now) {
					const guest = state?.guests.find((g) => g.id === id);
					if (!here.has(id))
						this.#ctx.notice(`${name} joined · ${guest?.access === "full" ? "full access" : "view only"}`);
				}
				for (const [id, name] of here) if (!now.has(id)) this.#ctx.notice(`${name} left`);
			}
			here = now;
		});
	}

	#open(): void {
		if (!isOwnerRole(this.#ctx.role())) return this.#ctx.notice("Only the owner can share this session.");
		const ref = this.#ref;
		if (!ref) return this.#ctx.notice("Open a session to share it.");
		const act = (work: () => Promise<unknown>) =>
			void work()
				.then(() => this.#ctx.requestRender())
				.catch((error: unknown) => {
					this.#ctx.notice(`Error: ${error instanceof Error ? error.message : String(error)}`, "error");
				});
		const copy = async (path: string, access: ShareAccess) => {
			const answer = await this.#ctx.copy(`${this.#ctx.origin}${path}`, LABELS[access]);
			if (!answer.ok && answer.error !== "declined")
				this.#ctx.notice(`Not copied: ${answer.error ?? "refused"}`, "warning");
		};
		this.#ctx.showSelector(
			"share",
			new SharePanel(this.#ctx.theme, {
				state: () => ref.state,
				waiting: () => this.#ctx.waiting(),
				// The link is only ever shown on the launcher's own screen, when it asks before copying.
				copyLink: (access) => act(async () => copy((await ref.call("link", { access, confirm: true })).path, access)),
				resetLink: (access) => act(async () => copy((await ref.call("reset", { access })).path, access)),
				setAccess: (guest, access) => act(() => ref.call("setAccess", { guest, access })),
				remove: (guest, block) => act(() => ref.call("remove", { guest, block })),
				setApproval: (on) => act(() => ref.call("setApproval", { on })),
				approve: (id) => act(() => this.#ctx.approve(id)),
				reject: (id) => act(() => this.#ctx.reject(id)),
				close: () => this.#ctx.closeSelector(),
			}),
		);
	}
}
