/**
 * /reply's list: pi's message selector (the look of its "Fork from Message"), over the people's messages of
 * the conversation, the latest selected. Enter picks the one the next message replies to; Escape cancels.
 */
import { type Component, getKeybindings, truncateToWidth } from "@earendil-works/pi-tui";
import { visibleText } from "../../ui/text.ts";
import type { ThemeRef } from "../../ui/theme/theme-ref.ts";

const MAX_VISIBLE = 10;

/** A message one can reply to: its seq, who wrote it (as shown) and its text. */
export interface ReplyCandidate {
	readonly seq: number;
	readonly author: string;
	readonly text: string;
}

export class ReplySelector implements Component {
	readonly capturesViewportInput = true;
	readonly #theme: ThemeRef;
	readonly #messages: readonly ReplyCandidate[];
	readonly #choose: (message: ReplyCandidate) => void;
	readonly #cancel: () => void;
	#selected: number;

	constructor(
		theme: ThemeRef,
		messages: readonly ReplyCandidate[],
		choose: (message: ReplyCandidate) => void,
		cancel: () => void,
	) {
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
			` ${t.bold("Reply to Message")}`,
			` ${t.fg("muted", "Select a message; your next message quotes it")}`,
			"",
			t.rule(width),
			"",
		];
		const n = this.#messages.length;
		const start = Math.max(0, Math.min(this.#selected - Math.floor(MAX_VISIBLE / 2), n - MAX_VISIBLE));
		const end = Math.min(start + MAX_VISIBLE, n);
		for (let i = start; i < end; i++) {
			const selected = i === this.#selected;
			const message = this.#messages[i]!;
			const text = truncateToWidth(visibleText(message.text, false).trim(), Math.max(1, width - 2));
			lines.push(`${selected ? t.fg("accent", "› ") : "  "}${selected ? t.bold(text) : text}`);
			lines.push(t.fg("muted", `  ${visibleText(message.author, false)} · Message ${i + 1} of ${n}`), "");
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
			const message = this.#messages[this.#selected];
			if (message) this.#choose(message);
		} else if (kb.matches(data, "tui.select.cancel")) this.#cancel();
	}
}
