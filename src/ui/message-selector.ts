/**
 * pi's message selector (its "Fork from Message" look): a title and a hint, then each message on two lines
 * (its text, then "Message i of n"), ten at a time around the selection, the latest selected. Enter chooses,
 * Escape cancels. Text is shown with its controls made visible.
 */
import { type Component, getKeybindings, truncateToWidth } from "@earendil-works/pi-tui";
import { visibleText } from "./text.ts";
import type { ThemeRef } from "./theme/theme-ref.ts";

const MAX_VISIBLE = 10;

export interface MessageSelectorOptions<T> {
	readonly title: string;
	readonly hint: string;
	readonly messages: readonly T[];
	readonly text: (message: T) => string;
	/** Said before "Message i of n" (its author). */
	readonly byline?: (message: T) => string;
	readonly choose: (message: T) => void;
	readonly cancel: () => void;
}

export class MessageSelector<T> implements Component {
	readonly capturesViewportInput = true;
	readonly #theme: ThemeRef;
	readonly #options: MessageSelectorOptions<T>;
	#selected: number;

	constructor(theme: ThemeRef, options: MessageSelectorOptions<T>) {
		this.#theme = theme;
		this.#options = options;
		this.#selected = Math.max(0, options.messages.length - 1);
	}

	invalidate(): void {}

	render(width: number): string[] {
		const t = this.#theme.current;
		const { messages, title, hint, text, byline } = this.#options;
		const lines = ["", ` ${t.bold(title)}`, ` ${t.fg("muted", hint)}`, "", t.rule(width), ""];
		const n = messages.length;
		const start = Math.max(0, Math.min(this.#selected - Math.floor(MAX_VISIBLE / 2), n - MAX_VISIBLE));
		const end = Math.min(start + MAX_VISIBLE, n);
		for (let i = start; i < end; i++) {
			const selected = i === this.#selected;
			const message = messages[i] as T;
			const shown = truncateToWidth(visibleText(text(message), false).trim(), Math.max(1, width - 2));
			const by = byline ? `${visibleText(byline(message), false)} · ` : "";
			lines.push(`${selected ? t.fg("accent", "› ") : "  "}${selected ? t.bold(shown) : shown}`);
			lines.push(t.fg("muted", `  ${by}Message ${i + 1} of ${n}`), "");
		}
		if (start > 0 || end < n) lines.push(t.fg("muted", `  (${this.#selected + 1}/${n})`));
		lines.push("", t.rule(width));
		return lines.map((l) => truncateToWidth(l, width, ""));
	}

	handleInput(data: string): void {
		const kb = getKeybindings();
		const n = this.#options.messages.length;
		if (kb.matches(data, "tui.select.up")) this.#selected = this.#selected === 0 ? n - 1 : this.#selected - 1;
		else if (kb.matches(data, "tui.select.down")) this.#selected = this.#selected === n - 1 ? 0 : this.#selected + 1;
		else if (kb.matches(data, "tui.select.confirm")) {
			const message = this.#options.messages[this.#selected];
			if (message !== undefined) this.#options.choose(message);
		} else if (kb.matches(data, "tui.select.cancel")) this.#options.cancel();
	}
}
