/**
 * pi's thinking level selector: the model's levels with pi's descriptions, ✓ on the current one, the default
 * badged, typing filters; Enter uses a level, Ctrl+S makes it the default.
 */
import {
	type Component,
	fuzzyFilter,
	getKeybindings,
	Input,
	type SelectItem,
	SelectList,
} from "@earendil-works/pi-tui";
import { keyText, matchesId } from "../../../guest/keymap.ts";
import type { ThinkingLevel } from "../../../protocol/thinking-levels.ts";
import type { ThemeRef } from "../../../ui/theme/theme-ref.ts";

export const LEVEL_DESCRIPTIONS: Readonly<Record<ThinkingLevel, string>> = {
	off: "No reasoning",
	minimal: "Very brief reasoning (~1k tokens)",
	low: "Light reasoning (~2k tokens)",
	medium: "Moderate reasoning (~8k tokens)",
	high: "Deep reasoning (~16k tokens)",
	xhigh: "Extra-high reasoning (~32k tokens)",
	max: "Maximum reasoning",
};

export interface ThinkingSelectorOptions {
	readonly theme: ThemeRef;
	readonly levels: readonly ThinkingLevel[];
	readonly current: ThinkingLevel;
	readonly default: ThinkingLevel | undefined;
	keys(id: string): string[];
	onSelect(level: ThinkingLevel): void;
	onSetDefault(level: ThinkingLevel): void;
	onCancel(): void;
}

export class ThinkingSelector implements Component {
	readonly capturesViewportInput = true;
	readonly #options: ThinkingSelectorOptions;
	readonly #search = new Input();
	readonly #items: SelectItem[];
	#list: SelectList;

	constructor(options: ThinkingSelectorOptions) {
		this.#options = options;
		this.#items = options.levels.map((level) => ({
			value: level,
			label: `${level === options.current ? "✓ " : "  "}${level}`,
			description: `${LEVEL_DESCRIPTIONS[level]}${level === options.default ? " · default" : ""}`,
		}));
		this.#search.onSubmit = () => this.#list.handleInput("\r");
		this.#list = this.#build(this.#items, options.current);
	}

	#build(items: SelectItem[], selected: string | undefined): SelectList {
		const list = new SelectList(items, Math.max(1, items.length), this.#options.theme.selectListTheme(), {
			minPrimaryColumnWidth: 12,
			maxPrimaryColumnWidth: 32,
		});
		const at = items.findIndex((i) => i.value === selected);
		if (at >= 0) list.setSelectedIndex(at);
		list.onSelect = (item) => this.#options.onSelect(item.value as ThinkingLevel);
		list.onCancel = () => this.#options.onCancel();
		return list;
	}

	invalidate(): void {
		this.#list.invalidate();
	}

	render(width: number): string[] {
		const t = this.#options.theme.current;
		const border = t.rule(width);
		const keys = (id: string) => keyText(this.#options.keys(id), { capitalize: true });
		return [
			border,
			"",
			"Thinking Level",
			"",
			`${keys("app.thinking.cycle")} cycles thinking levels in-session`,
			"",
			...this.#search.render(width),
			"",
			...this.#list.render(width),
			"",
			t.fg(
				"dim",
				`  ${keys("tui.select.confirm")} to select · ${keys("app.thinking.save")} to set as default · ${keys("tui.select.cancel")} to cancel`,
			),
			border,
		];
	}

	handleInput(data: string): void {
		const kb = getKeybindings();
		if (matchesId(data, "app.thinking.save")) {
			const item = this.#list.getSelectedItem();
			if (item) this.#options.onSetDefault(item.value as ThinkingLevel);
			return;
		}
		if (
			["tui.select.up", "tui.select.down", "tui.select.confirm", "tui.select.cancel"].some((id) =>
				kb.matches(data, id as "tui.select.up"),
			)
		) {
			this.#list.handleInput(data);
			return;
		}
		const before = this.#search.getValue();
		this.#search.handleInput(data);
		const query = this.#search.getValue();
		if (query === before) return;
		const items = query ? fuzzyFilter(this.#items, query, (i) => `${i.value} ${i.description ?? ""}`) : this.#items;
		this.#list = this.#build(items, this.#list.getSelectedItem()?.value);
	}
}
