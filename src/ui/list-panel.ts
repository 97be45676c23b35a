/**
 * A titled list in the dock, as the owner's panels use it (/notices, /devices, /providers): one row selected
 * (`→`), a right-hand column, a hint for the selected row, a question that the next key answers (y or Enter),
 * and Esc to close. What a key does on a row is the panel's. Row text is the caller's, made visible here.
 */
import {
	type Component,
	getKeybindings,
	matchesKey,
	truncateToWidth,
	visibleWidth,
	wrapTextWithAnsi,
} from "@earendil-works/pi-tui";
import { typedChar, visibleText } from "./text.ts";
import type { ThemeRef } from "./theme/theme-ref.ts";

export interface ListRow {
	readonly left: string;
	readonly right?: string;
	/** Under the selected row, dimmed and wrapped (at most four lines): a notice's whole text. */
	readonly detail?: string;
	readonly tone?: "warning" | "error";
}

export interface ListPanelOptions<T> {
	readonly title: string;
	items(): readonly T[] | undefined;
	row(item: T): ListRow;
	/** The hint line for the selected item (or for none). */
	hint(item: T | undefined): string;
	/** What no items means, in words. */
	readonly empty: string;
	/** A key on the selected item (or none): true when it did something. */
	onKey(data: string, item: T | undefined, ask: (question: string, yes: () => void) => void): boolean;
	/** Typing filters the list (Backspace takes back) when given: whether an item matches what was typed. */
	matches?(item: T, typed: string): boolean;
	close(): void;
}

const MAX_VISIBLE = 12;

export class ListPanel<T> implements Component {
	readonly capturesViewportInput = true;
	readonly #theme: ThemeRef;
	readonly #options: ListPanelOptions<T>;
	#selected = 0;
	#confirm: { text: string; yes: () => void } | undefined;
	#typed = "";

	constructor(theme: ThemeRef, options: ListPanelOptions<T>) {
		this.#theme = theme;
		this.#options = options;
	}

	invalidate(): void {}

	#items(): readonly T[] | undefined {
		const items = this.#options.items();
		const { matches } = this.#options;
		return items && matches && this.#typed ? items.filter((item) => matches(item, this.#typed)) : items;
	}

	/** Selects the first item `which` picks (the panel opens on it). */
	select(which: (item: T) => boolean): void {
		const at = (this.#items() ?? []).findIndex(which);
		if (at >= 0) this.#selected = at;
	}

	get selected(): T | undefined {
		const items = this.#items() ?? [];
		return items[Math.max(0, Math.min(this.#selected, items.length - 1))];
	}

	render(width: number): string[] {
		const t = this.#theme.current;
		const items = this.#items();
		const lines = [t.rule(width), t.bold(` ${visibleText(this.#options.title, false)}`)];
		lines.push(this.#options.matches ? `${t.fg("dim", " > ")}${visibleText(this.#typed, false)}` : "");
		if (!items) {
			lines.push(t.fg("dim", "  Loading…"), "", t.rule(width));
			return lines;
		}
		this.#selected = Math.max(0, Math.min(this.#selected, items.length - 1));
		if (!items.length) lines.push(t.fg("dim", `  ${this.#options.empty}`));
		const start = Math.max(0, Math.min(this.#selected - Math.floor(MAX_VISIBLE / 2), items.length - MAX_VISIBLE));
		const end = Math.min(items.length, start + MAX_VISIBLE);
		for (let i = start; i < end; i++) {
			const row = this.#options.row(items[i] as T);
			const selected = i === this.#selected;
			const cursor = selected ? t.fg("accent", "→ ") : "  ";
			const left = visibleText(row.left, false);
			const colored = selected ? t.fg("accent", left) : row.tone ? t.fg(row.tone, left) : left;
			const right = row.right ? visibleText(row.right, false) : "";
			const shown = truncateToWidth(`  ${cursor}${colored}`, Math.max(1, width - visibleWidth(right) - 2), "…");
			const pad = " ".repeat(Math.max(1, width - visibleWidth(shown) - visibleWidth(right) - 1));
			lines.push(right ? `${shown}${pad}${t.fg("dim", right)}` : shown);
			if (row.detail && selected) {
				const wrapped = wrapTextWithAnsi(visibleText(row.detail, false), Math.max(10, width - 8));
				for (const part of wrapped.slice(0, 4)) lines.push(t.fg("muted", `      ${part}`));
			}
		}
		if (start > 0 || end < items.length) lines.push(t.fg("muted", `  (${this.#selected + 1}/${items.length})`));
		lines.push("");
		if (this.#confirm) lines.push(t.fg("warning", `  ${this.#confirm.text} (y/n)`));
		else lines.push(t.fg("dim", `  ${this.#options.hint(this.selected)}`));
		lines.push(t.rule(width));
		return lines.map((line) => truncateToWidth(line, width, "…"));
	}

	handleInput(data: string): void {
		const kb = getKeybindings();
		if (this.#confirm) {
			const { yes } = this.#confirm;
			this.#confirm = undefined;
			if (data === "y" || data === "Y" || kb.matches(data, "tui.select.confirm")) yes();
			return;
		}
		const count = this.#items()?.length ?? 0;
		if (kb.matches(data, "tui.select.cancel")) return this.#options.close();
		if (kb.matches(data, "tui.select.up")) {
			this.#selected = this.#selected <= 0 ? Math.max(0, count - 1) : this.#selected - 1;
			return;
		}
		if (kb.matches(data, "tui.select.down")) {
			this.#selected = this.#selected >= count - 1 ? 0 : this.#selected + 1;
			return;
		}
		const handled = this.#options.onKey(data, this.selected, (text, yes) => {
			this.#confirm = { text, yes };
		});
		if (handled || !this.#options.matches) return;
		if (matchesKey(data, "backspace")) this.#typed = this.#typed.slice(0, -1);
		else {
			const char = typedChar(data);
			if (char) this.#typed += char;
		}
		this.#selected = 0;
	}
}
