/**
 * Owner notices in the UI: pending ones summarized once as a status line, then one status line per
 * new notice; `/notices` lists them (Ctrl+D dismisses, Ctrl+R retries) and `/retry` retries the newest one that
 * can be. The notices object is held only while an owner is signed in; guests never ask for it.
 */

import { matchesKey } from "@earendil-works/pi-tui";
import type { GuestContext, GuestPlugin } from "../../guest/plugin.ts";
import type { ObjectRef } from "../../protocol/object-client.ts";
import { isOwnerRole } from "../../protocol/roles.ts";
import { ListPanel } from "../../ui/list-panel.ts";
import { visibleText } from "../../ui/text.ts";
import { type Notice, noticesContract } from "./contract.ts";

/** Notices are the server's owner's. */
const OWNERS_NOTICES = { role: "owner", to: "read the server's notices" } as const;

function age(ms: number): string {
	const minutes = Math.floor(ms / 60_000);
	if (minutes < 1) return "just now";
	if (minutes < 60) return `${minutes}m ago`;
	const hours = Math.floor(minutes / 60);
	return hours < 24 ? `${hours}h ago` : `${Math.floor(hours / 24)}d ago`;
}

export const noticesPlugin: GuestPlugin = {
	name: "notices",
	register(ctx) {
		const notices = new OwnerNotices(ctx);
		return () => notices.dispose();
	},
};

class OwnerNotices {
	readonly #ctx: GuestContext;
	readonly #removals: (() => void)[];
	#ref: ObjectRef<typeof noticesContract> | undefined;
	/** Notices already told about, so each new one shows once. */
	readonly #seen = new Set<string>();

	constructor(ctx: GuestContext) {
		this.#ctx = ctx;
		this.#removals = [
			ctx.commands.register({
				id: "p2.notices",
				title: "Notices for the server's owner: what failed and what to do",
				category: "p2",
				requires: OWNERS_NOTICES,
				slash: { name: "notices" },
				run: () => this.#open(),
			}),
			ctx.commands.register({
				id: "p2.retry",
				title: "Retry what the newest notice says failed",
				category: "p2",
				requires: OWNERS_NOTICES,
				slash: { name: "retry" },
				run: () => {
					const notice = [...(this.#ref?.state?.notices ?? [])].reverse().find((n) => n.retry);
					if (!notice) return ctx.ui.notice("Nothing to retry.");
					this.#retry(notice);
				},
			}),
			ctx.session.on("identity", () => this.#follow()),
		];
		this.#follow();
	}

	dispose(): void {
		for (const remove of this.#removals) remove();
		this.#ref?.close();
	}

	#follow(): void {
		const owner = isOwnerRole(this.#ctx.session.role);
		if (!owner) {
			this.#ref?.close();
			this.#ref = undefined;
			return;
		}
		if (this.#ref) return;
		const ref = this.#ctx.objects.open(noticesContract, {});
		this.#ref = ref;
		let first = true;
		ref.onChange((state) => {
			if (this.#ref !== ref || !state) return;
			const fresh = state.notices.filter((n) => !this.#seen.has(n.id));
			for (const n of fresh) this.#seen.add(n.id);
			if (first) {
				first = false;
				// Those waiting when p2 starts: one line for all of them; a reloaded UI said it already.
				if (this.#ctx.start.reason !== "start") return;
				if (fresh.length === 1 && fresh[0]) this.#tell(fresh[0]);
				else if (fresh.length > 1)
					this.#ctx.ui.notice(`${fresh.length} notices for the server's owner: /notices`, "warning");
			} else for (const n of fresh) this.#tell(n);
			if (this.#ctx.ui.selector?.id === "notices") this.#ctx.ui.requestRender();
		});
	}

	#tell(notice: Notice): void {
		const text = visibleText(notice.text, false);
		this.#ctx.ui.notice(
			`${text} (/notices${notice.retry ? ", /retry" : ""})`,
			notice.level === "error" ? "error" : "warning",
		);
	}

	#retry(notice: Notice): void {
		const ref = this.#ref;
		if (!ref) return;
		this.#ctx.ui.notice("Retrying…");
		ref.call("retry", { id: notice.id }).then(
			({ message }) => this.#ctx.ui.notice(visibleText(message, false)),
			(error: unknown) => this.#ctx.ui.fail(error),
		);
	}

	#open(): void {
		const { ui } = this.#ctx;
		const ref = this.#ref;
		if (!ref) return ui.notice("Only the server's owner has notices.");
		ui.showSelector(
			"notices",
			new ListPanel<Notice>(ui.theme, {
				title: "Notices",
				empty: "Nothing needs your attention.",
				items: () => (ref.state ? [...ref.state.notices].reverse() : undefined),
				row: (n) => ({
					left: n.text,
					right: `${n.source} · ${age(Date.now() - n.time)}`,
					detail: n.text,
					tone: n.level === "error" ? "error" : "warning",
				}),
				hint: (n) => (n ? `ctrl+d dismiss${n.retry ? " · ctrl+r retry" : ""} · ↑↓ move · esc close` : "esc close"),
				onKey: (data, n) => {
					if (!n) return false;
					if (matchesKey(data, "ctrl+d")) {
						ref.call("dismiss", { id: n.id }).catch((error: unknown) => ui.fail(error));
						return true;
					}
					if (matchesKey(data, "ctrl+r") && n.retry) {
						this.#retry(n);
						return true;
					}
					return false;
				},
				close: () => ui.closeSelector(),
			}),
		);
	}
}
