/**
 * pi's small menu (its extension selector, as /login's "Select authentication method:" uses it): a title, a few
 * choices with `→` on the selected one (j/k move too), the key hint between blank lines, in border lines.
 */
import { type Component, getKeybindings, truncateToWidth } from "@earendil-works/pi-tui";
import type { ThemeRef } from "./theme/theme-ref.ts";

const MAX_VISIBLE = 10;

export interface MenuSelectorOptions {
	readonly title: string;
	readonly choices: readonly { readonly value: string; readonly label: string }[];
	/** The hint line's keys and what they do, as pi writes it: `↑↓ navigate  enter select  escape/ctrl+c cancel`. */
	readonly hint: readonly (readonly [keys: string, does: string])[];
	onSelect(value: string): void;
	onCancel(): void;
}

export class MenuSelector implements Component {
	readonly capturesViewportInput = true;
	readonly #theme: ThemeRef;
	readonly #options: MenuSelectorOptions;
	#selected = 0;

	constructor(theme: ThemeRef, options: MenuSelectorOptions) {
		this.#theme = theme;
		this.#options = options;
	}

	invalidate(): void {}

	render(width: number): string[] {
		const t = this.#theme.current;
		const fit = (line: string) => truncateToWidth(line, width, "");
		const border = t.rule(width);
		const { choices } = this.#options;
		const start = Math.max(0, Math.min(this.#selected - Math.floor(MAX_VISIBLE / 2), choices.length - MAX_VISIBLE));
		const end = Math.min(start + MAX_VISIBLE, choices.length);
		const rows: string[] = [];
		for (let i = start; i < end; i++) {
			const label = choices[i]!.label;
			rows.push(
				fit(i === this.#selected ? ` ${t.fg("accent", "→ ")}${t.fg("accent", label)}` : `   ${t.fg("text", label)}`),
			);
		}
		if (start > 0 || end < choices.length) rows.push(t.fg("muted", `  (${this.#selected + 1}/${choices.length})`));
		return [
			border,
			"",
			fit(` ${t.fg("accent", t.bold(this.#options.title))}`),
			"",
			...rows,
			"",
			fit(` ${this.#options.hint.map(([keys, does]) => `${t.fg("dim", keys)} ${t.fg("muted", does)}`).join("  ")}`),
			"",
			border,
		];
	}

	handleInput(data: string): void {
		const kb = getKeybindings();
		const last = this.#options.choices.length - 1;
		if (kb.matches(data, "tui.select.up") || data === "k") this.#selected = Math.max(0, this.#selected - 1);
		else if (kb.matches(data, "tui.select.down") || data === "j") this.#selected = Math.min(last, this.#selected + 1);
		else if (kb.matches(data, "tui.select.confirm") || data === "\n") {
			const choice = this.#options.choices[this.#selected];
			if (choice) this.#options.onSelect(choice.value);
		} else if (kb.matches(data, "tui.select.cancel")) this.#options.onCancel();
	}
}
