/**
 * `/share`: the owner's share sheet in the dock. The two links (copied through the launcher, which alone shows
 * them), approval mode, whether full guests may forward ports, the guests with their access and presence, and guests' messages waiting for approval.
 */
import { type Component, getKeybindings, matchesKey, truncateToWidth, visibleWidth } from "@earendil-works/pi-tui";
import { guestLabel, guestName } from "../../protocol/share-link.ts";
import { visibleText } from "../../ui/text.ts";
import type { ThemeRef } from "../../ui/theme/theme-ref.ts";
import type { ShareAccess, SharedGuest, SharingState } from "./contract.ts";

/** A guest's message waiting for the owner's approval (the chat's queue, as this panel needs it). */
export interface WaitingMessage {
	readonly id: string;
	readonly text: string;
	readonly author: { readonly name: string };
}

export interface SharePanelOptions {
	state(): SharingState | undefined;
	/** Guests' messages waiting for approval in the open conversation. */
	waiting(): readonly WaitingMessage[];
	copyLink(access: ShareAccess): void;
	resetLink(access: ShareAccess): void;
	setAccess(guest: string, access: ShareAccess): void;
	remove(guest: string, block: boolean): void;
	setApproval(on: boolean): void;
	setGuestForwards(on: boolean): void;
	approve(id: string): void;
	reject(id: string): void;
	close(): void;
}

type Row =
	| { kind: "link"; access: ShareAccess }
	| { kind: "approval" }
	| { kind: "forwards" }
	| { kind: "guest"; guest: SharedGuest }
	| { kind: "waiting"; item: WaitingMessage };

const ACCESS_WORDS: Record<ShareAccess, string> = { view: "view only", full: "full access" };

function age(ms: number): string {
	const minutes = Math.floor(ms / 60_000);
	if (minutes < 1) return "just now";
	if (minutes < 60) return `${minutes}m ago`;
	const hours = Math.floor(minutes / 60);
	return hours < 24 ? `${hours}h ago` : `${Math.floor(hours / 24)}d ago`;
}

export class SharePanel implements Component {
	readonly capturesViewportInput = true;
	readonly #theme: ThemeRef;
	readonly #options: SharePanelOptions;
	#selected = 0;
	/** A question the next key answers (y or Enter: yes). */
	#confirm: { text: string; yes: () => void } | undefined;

	constructor(theme: ThemeRef, options: SharePanelOptions) {
		this.#theme = theme;
		this.#options = options;
	}

	invalidate(): void {}

	#rows(): Row[] {
		const state = this.#options.state();
		const rows: Row[] = [
			{ kind: "link", access: "view" },
			{ kind: "link", access: "full" },
			{ kind: "approval" },
			{ kind: "forwards" },
		];
		for (const guest of state?.guests ?? []) rows.push({ kind: "guest", guest });
		for (const item of this.#options.waiting()) rows.push({ kind: "waiting", item });
		return rows;
	}

	render(width: number): string[] {
		const t = this.#theme.current;
		const state = this.#options.state();
		const rows = this.#rows();
		this.#selected = Math.min(this.#selected, rows.length - 1);
		const lines = [t.rule(width), t.bold(" Share this session")];
		if (!state) {
			lines.push(t.fg("dim", "  Loading…"), t.rule(width));
			return lines;
		}
		let section = "";
		rows.forEach((row, index) => {
			const heading = row.kind === "guest" ? "Guests" : row.kind === "waiting" ? "Waiting for your approval" : "";
			if (heading && heading !== section) {
				lines.push("", t.fg("muted", `  ${heading}`));
				section = heading;
			}
			lines.push(this.#line(row, index === this.#selected, width, state));
		});
		if (!state.guests.length) lines.push("", t.fg("dim", "  No one has joined yet."));
		lines.push("");
		if (this.#confirm) lines.push(t.fg("warning", `  ${this.#confirm.text} (y/n)`));
		else lines.push(t.fg("dim", `  ${this.#hint(rows[this.#selected])}`));
		lines.push(t.rule(width));
		return lines.map((line) => truncateToWidth(line, width, "…"));
	}

	#line(row: Row, selected: boolean, width: number, state: SharingState): string {
		const t = this.#theme.current;
		const cursor = selected ? t.fg("accent", "→ ") : "  ";
		let left: string;
		let right = "";
		switch (row.kind) {
			case "link": {
				const made = state.links[row.access];
				left = `${row.access === "view" ? "View-only link" : "Full-access link"}`;
				right = made === null ? "not made yet" : `made ${age(Date.now() - made)}`;
				break;
			}
			case "approval":
				left = `Approve guests' messages: ${state.approval ? "on" : "off"}`;
				right = state.approval ? "a full guest's message waits for you" : "full guests' messages run at once";
				break;
			case "forwards":
				left = `Guests may open ports on their computer: ${state.guestForwards ? "on" : "off"}`;
				right = state.guestForwards ? "full guests may use /ports" : "only you use /ports";
				break;
			case "guest": {
				const g = row.guest;
				left = `${guestLabel(g.name)} · ${g.blocked ? "blocked" : ACCESS_WORDS[g.access]}`;
				right = `${g.blocked ? "" : g.connected > 0 ? "here now · " : "away · "}joined ${age(Date.now() - g.since)}`;
				break;
			}
			case "waiting":
				left = `${guestName(row.item.author.name) || "guest"}: ${visibleText(row.item.text, false)}`;
				break;
		}
		const text = `  ${cursor}${selected ? t.fg("accent", left) : left}`;
		const room = width - visibleWidth(right) - 2;
		const shown = truncateToWidth(text, Math.max(1, room), "…");
		const pad = " ".repeat(Math.max(1, width - visibleWidth(shown) - visibleWidth(right) - 1));
		return `${shown}${pad}${t.fg("dim", right)}`;
	}

	#hint(row: Row | undefined): string {
		switch (row?.kind) {
			case "link":
				return "enter copy link · ctrl+r reset link · ↑↓ move · esc close";
			case "approval":
			case "forwards":
				return "enter turn on/off · ↑↓ move · esc close";
			case "guest":
				return row.guest.blocked
					? "ctrl+d forget · ↑↓ move · esc close"
					: "tab view only/full access · ctrl+d remove · ctrl+b block · ↑↓ move · esc close";
			case "waiting":
				return "enter accept · ctrl+d send back · ↑↓ move · esc close";
			default:
				return "esc close";
		}
	}

	handleInput(data: string): void {
		const kb = getKeybindings();
		if (this.#confirm) {
			const { yes } = this.#confirm;
			this.#confirm = undefined;
			if (data === "y" || data === "Y" || kb.matches(data, "tui.select.confirm")) yes();
			return;
		}
		const rows = this.#rows();
		// Rows come and go with the state (a guest leaves, a message is accepted): stay on the list.
		this.#selected = Math.max(0, Math.min(this.#selected, rows.length - 1));
		const row = rows[this.#selected];
		const state = this.#options.state();
		if (kb.matches(data, "tui.select.cancel")) return this.#options.close();
		if (kb.matches(data, "tui.select.up")) {
			this.#selected = this.#selected === 0 ? rows.length - 1 : this.#selected - 1;
			return;
		}
		if (kb.matches(data, "tui.select.down")) {
			this.#selected = this.#selected >= rows.length - 1 ? 0 : this.#selected + 1;
			return;
		}
		if (!row || !state) return;
		const enter = kb.matches(data, "tui.select.confirm");
		switch (row.kind) {
			case "link":
				if (enter) {
					if (row.access === "full" && state.links.full === null) {
						this.#confirm = {
							text: `Guests with full access can send messages and run commands on ${visibleText(state.machine, false)}. Make the link?`,
							yes: () => this.#options.copyLink("full"),
						};
					} else this.#options.copyLink(row.access);
				} else if (matchesKey(data, "ctrl+r") && state.links[row.access] !== null) {
					this.#confirm = {
						text: "Reset this link? The old one stops working, and everyone who joined with it is removed.",
						yes: () => this.#options.resetLink(row.access),
					};
				}
				return;
			case "approval":
				if (enter) this.#options.setApproval(!state.approval);
				return;
			case "forwards":
				if (enter && state.guestForwards) this.#options.setGuestForwards(false);
				else if (enter)
					this.#confirm = {
						text: `Full guests will reach ports listening on ${visibleText(state.machine, false)} from their computers. Allow?`,
						yes: () => this.#options.setGuestForwards(true),
					};
				return;
			case "guest": {
				const g = row.guest;
				const name = guestName(g.name) || "this guest";
				if (kb.matches(data, "tui.input.tab") && !g.blocked) {
					this.#options.setAccess(g.id, g.access === "full" ? "view" : "full");
				} else if (matchesKey(data, "ctrl+d")) {
					this.#confirm = {
						text: g.blocked ? `Forget ${name}?` : `Remove ${name}? They can join again with the link.`,
						yes: () => this.#options.remove(g.id, false),
					};
				} else if (matchesKey(data, "ctrl+b") && !g.blocked) {
					this.#confirm = {
						text: `Block ${name}? Their p2 can no longer join; reset the link to keep out a new name.`,
						yes: () => this.#options.remove(g.id, true),
					};
				}
				return;
			}
			case "waiting":
				if (enter) this.#options.approve(row.item.id);
				else if (matchesKey(data, "ctrl+d")) this.#options.reject(row.item.id);
				return;
		}
	}
}
