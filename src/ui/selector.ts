import {
	type Component,
	fuzzyFilter,
	getKeybindings,
	type SelectItem,
	SelectList,
	type SelectListLayoutOptions,
	truncateToWidth,
} from "@earendil-works/pi-tui";
import { typedChar } from "./text.ts";
import type { ThemeRef } from "./theme/theme-ref.ts";

export interface FilterSelectorOptions {
	readonly title: string;
	readonly items: readonly SelectItem[];
	readonly hint: string;
	readonly maxVisible?: number;
	/** The label column's width (pi-tui's default cuts labels at 30 columns). */
	readonly layout?: SelectListLayoutOptions;
	/** What typing filters on (fuzzy, pi's matcher); the label when not given. */
	readonly filterText?: (item: SelectItem) => string;
	onSelect(item: SelectItem): void;
	onCancel(): void;
}

/**
 * A selector in pi's dock style: full-width border lines, a title, a list that typing filters, a hint line.
 * It takes the editor's place while open (the screen decides that).
 */
export class FilterSelector implements Component {
	readonly capturesViewportInput = true;
	readonly #theme: ThemeRef;
	readonly #options: FilterSelectorOptions;
	#filter = "";
	#list: SelectList;

	constructor(theme: ThemeRef, options: FilterSelectorOptions) {
		this.#theme = theme;
		this.#options = options;
		this.#list = this.#build();
	}

	#build(): SelectList {
		const { items, filterText } = this.#options;
		const matched = this.#filter ? fuzzyFilter([...items], this.#filter, filterText ?? ((i) => i.label)) : [...items];
		const list = new SelectList(
			matched,
			this.#options.maxVisible ?? 10,
			this.#theme.selectListTheme(),
			this.#options.layout,
		);
		list.onSelect = (item) => this.#options.onSelect(item);
		list.onCancel = () => this.#options.onCancel();
		return list;
	}

	invalidate(): void {
		this.#list.invalidate();
	}

	render(width: number): string[] {
		const t = this.#theme.current;
		const border = t.rule(width);
		const query = this.#filter ? t.fg("text", ` ${this.#filter}`) : t.fg("dim", " type to filter");
		return [
			border,
			truncateToWidth(` ${t.bold(t.fg("accent", this.#options.title))}${query}`, width, ""),
			...this.#list.render(width),
			truncateToWidth(` ${t.fg("dim", this.#options.hint)}`, width, ""),
			border,
		];
	}

	handleInput(data: string): void {
		const kb = getKeybindings();
		if (kb.matches(data, "tui.editor.deleteCharBackward")) {
			if (!this.#filter) return;
			this.#filter = this.#filter.slice(0, -1);
			this.#list = this.#build();
			return;
		}
		const printable = typedChar(data);
		if (printable && !kb.matches(data, "tui.select.confirm")) {
			this.#filter += printable;
			this.#list = this.#build();
			return;
		}
		this.#list.handleInput(data);
	}
}
