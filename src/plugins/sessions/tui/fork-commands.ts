/**
 * pi's /fork and /clone: a new session from an earlier message of this one (the message goes back into the
 * editor), or a copy of it as it stands. The server makes the child session; the screen then opens it.
 */
import { type Component, getKeybindings, truncateToWidth } from "@earendil-works/pi-tui";
import type { GuestContext } from "../../../guest/plugin.ts";
import { isOwnerRole } from "../../../protocol/roles.ts";
import { visibleText } from "../../../ui/text.ts";
import type { ThemeRef } from "../../../ui/theme/theme-ref.ts";
import type { ChatEntry } from "./peers.ts";

const MAX_VISIBLE = 10;

type UserEntry = Extract<ChatEntry, { kind: "user" }>;

/** pi's "Fork from Message": the user messages, two lines each, the latest selected. */
export class ForkSelector implements Component {
	readonly capturesViewportInput = true;
	readonly #theme: ThemeRef;
	readonly #messages: readonly UserEntry[];
	readonly #choose: (entry: UserEntry) => void;
	readonly #cancel: () => void;
	#selected: number;

	constructor(theme: ThemeRef, messages: readonly UserEntry[], choose: (e: UserEntry) => void, cancel: () => void) {
		this.#theme = theme;
		this.#messages = messages;
		this.#choose = choose;
		this.#cancel = cancel;
		this.#selected = Math.max(0, messages.length - 1);
	}

	invalidate(): void {}

	render(width: number): string[] {
		const t = this.#theme.current;
		const lines = [
			"",
			` ${t.bold("Fork from Message")}`,
			` ${t.fg("muted", "Select a user message to copy the conversation up to that point into a new session")}`,
			"",
			t.rule(width),
			"",
		];
		const n = this.#messages.length;
		const start = Math.max(0, Math.min(this.#selected - Math.floor(MAX_VISIBLE / 2), n - MAX_VISIBLE));
		const end = Math.min(start + MAX_VISIBLE, n);
		for (let i = start; i < end; i++) {
			const selected = i === this.#selected;
			const text = truncateToWidth(visibleText(this.#messages[i]!.text, false).trim(), Math.max(1, width - 2));
			lines.push(`${selected ? t.fg("accent", "› ") : "  "}${selected ? t.bold(text) : text}`);
			lines.push(t.fg("muted", `  Message ${i + 1} of ${n}`), "");
		}
		if (start > 0 || end < n) lines.push(t.fg("muted", `  (${this.#selected + 1}/${n})`));
		lines.push("", t.rule(width));
		return lines.map((l) => truncateToWidth(l, width, ""));
	}

	handleInput(data: string): void {
		const kb = getKeybindings();
		const n = this.#messages.length;
		if (kb.matches(data, "tui.select.up")) this.#selected = this.#selected === 0 ? n - 1 : this.#selected - 1;
		else if (kb.matches(data, "tui.select.down")) this.#selected = this.#selected === n - 1 ? 0 : this.#selected + 1;
		else if (kb.matches(data, "tui.select.confirm")) {
			const entry = this.#messages[this.#selected];
			if (entry) this.#choose(entry);
		} else if (kb.matches(data, "tui.select.cancel")) this.#cancel();
	}
}

export function registerForkCommands(ctx: GuestContext): () => void {
	const { ui } = ctx;
	const conversation = () => ctx.services.get("conversation");
	const fork = async (beforeSeq: number | undefined, draft: string, done: string) => {
		const chat = conversation()?.ref;
		if (!chat) return ui.notice("No session is open yet.");
		const { session } = await chat.call("fork", beforeSeq === undefined ? {} : { beforeSeq });
		ctx.session.open(session, { draft });
		ui.notice(done);
	};
	const ownerOnly = () => {
		if (isOwnerRole(ctx.session.role)) return false;
		ui.notice("Only the owner can start sessions; you were given this one.");
		return true;
	};
	const entries = () => conversation()?.entries() ?? [];
	const removals = [
		ctx.commands.register({
			id: "app.session.fork",
			title: "Create a new fork from a previous user message",
			category: "Sessions",
			when: "chat && owner",
			slash: { name: "fork" },
			run: () => {
				if (ownerOnly()) return;
				const messages = entries().filter((e): e is UserEntry => e.kind === "user");
				if (!messages.length) return ui.notice("No messages to fork from");
				ui.showSelector(
					"fork",
					new ForkSelector(
						ui.theme,
						messages,
						(entry) => {
							ui.closeSelector();
							fork(entry.seq, entry.text, "Forked to new session").catch((error: unknown) =>
								ui.notice(`Error: ${error instanceof Error ? error.message : String(error)}`, "error"),
							);
						},
						() => ui.closeSelector(),
					),
				);
			},
		}),
		ctx.commands.register({
			id: "p2.session.clone",
			title: "Duplicate the current session at the current position",
			category: "Sessions",
			when: "chat && owner",
			slash: { name: "clone" },
			run: async () => {
				if (ownerOnly()) return;
				if (!entries().length) return ui.notice("Nothing to clone yet");
				await fork(undefined, "", "Cloned to new session");
			},
		}),
	];
	return () => {
		for (const remove of removals) remove();
	};
}
