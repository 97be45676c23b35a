/**
 * /scoped-models: pi's checklist of the models Ctrl+P cycles through, with its search line and model name
 * line. Enter toggles, Ctrl+A enables all (the matches while searching), Ctrl+X clears them, Ctrl+P toggles
 * the selected model's provider, Alt+Up/Alt+Down reorder, Ctrl+S saves to the server's settings, Esc cancels.
 */
import {
	type Component,
	fuzzyFilter,
	getKeybindings,
	Input,
	Key,
	matchesKey,
	truncateToWidth,
} from "@earendil-works/pi-tui";
import { keyText, matchesId } from "../../../guest/keymap.ts";
import type { ThemeRef } from "../../../ui/theme/theme-ref.ts";
import type { ModelInfo } from "../contract.ts";
import { distinctName, type ModelRefLike } from "./model-selector.ts";

const MAX_VISIBLE = 8;

export interface ScopedModelsSelectorOptions {
	readonly theme: ThemeRef;
	readonly models: readonly ModelInfo[];
	/** The scope now, in its order; empty means every model. */
	readonly enabled: readonly ModelRefLike[];
	keys(id: string): string[];
	onSave(enabled: ModelInfo[]): void;
	onCancel(): void;
}

const key = (m: ModelRefLike) => `${m.provider}/${m.id}`;

export class ScopedModelsSelector implements Component {
	readonly capturesViewportInput = true;
	readonly #options: ScopedModelsSelectorOptions;
	readonly #byKey: Map<string, ModelInfo>;
	readonly #all: string[];
	readonly #search = new Input();
	/** pi's enabled list: the enabled models in their order, or null when every one is. */
	#enabled: string[] | null;
	#selected = 0;
	#dirty = false;

	constructor(options: ScopedModelsSelectorOptions) {
		this.#options = options;
		this.#all = options.models.map(key);
		this.#byKey = new Map(options.models.map((m) => [key(m), m]));
		const scoped = options.enabled.map(key).filter((k) => this.#byKey.has(k));
		this.#enabled = scoped.length ? this.#normalized(scoped) : null;
	}

	/** An explicit list of every model is pi's "all enabled". */
	#normalized(list: string[]): string[] | null {
		return list.length === this.#all.length && this.#all.every((k) => list.includes(k)) ? null : list;
	}

	#isEnabled(k: string): boolean {
		return this.#enabled === null || this.#enabled.includes(k);
	}

	/** Enabled models first, in their order, then the rest; filtered by the search. */
	#items(): string[] {
		const enabled = this.#enabled;
		const sorted = enabled === null ? this.#all : [...enabled, ...this.#all.filter((k) => !enabled.includes(k))];
		const query = this.#search.getValue();
		if (!query) return sorted;
		return fuzzyFilter(sorted, query, (k) => {
			const m = this.#byKey.get(k)!;
			return `${m.id} ${m.provider} ${m.provider}/${m.id} ${m.provider} ${m.id} ${m.name}`;
		});
	}

	#enable(targets: readonly string[]): void {
		if (this.#enabled === null) return;
		const list = [...this.#enabled];
		for (const k of targets) if (!list.includes(k)) list.push(k);
		this.#enabled = this.#normalized(list);
	}

	#clear(targets: readonly string[]): void {
		this.#enabled = (this.#enabled ?? this.#all).filter((k) => !targets.includes(k));
	}

	invalidate(): void {
		this.#search.invalidate();
	}

	render(width: number): string[] {
		const t = this.#options.theme.current;
		const fit = (line: string) => truncateToWidth(line, width, "");
		const k = (id: string) => keyText(this.#options.keys(id), { capitalize: true });
		const border = t.rule(width);
		const items = this.#items();
		this.#selected = Math.min(this.#selected, Math.max(0, items.length - 1));
		const start = Math.max(0, Math.min(this.#selected - Math.floor(MAX_VISIBLE / 2), items.length - MAX_VISIBLE));
		const end = Math.min(start + MAX_VISIBLE, items.length);
		const rows: string[] = [];
		for (let i = start; i < end; i++) {
			const m = this.#byKey.get(items[i]!)!;
			const selected = i === this.#selected;
			const name = distinctName(m);
			rows.push(
				fit(
					`${selected ? t.fg("accent", "→ ") : "  "}${this.#isEnabled(items[i]!) ? t.fg("accent", "✓ ") : "  "}` +
						`${selected ? t.fg("accent", m.id) : m.id}${name ? t.fg("muted", ` (${name})`) : ""}${t.fg("muted", ` [${m.provider}]`)}`,
				),
			);
		}
		if (start > 0 || end < items.length) rows.push(t.fg("muted", `  (${this.#selected + 1}/${items.length})`));
		const chosen = this.#byKey.get(items[this.#selected] ?? "");
		if (chosen) rows.push("", fit(t.fg("muted", `  Model Name: ${chosen.name}`)));
		else rows.push(t.fg("muted", "  No matching models"));
		const count = this.#enabled === null ? "all enabled" : `${this.#enabled.length}/${this.#all.length} enabled`;
		const hint = [
			`${k("tui.select.confirm")} toggle`,
			`${k("app.models.enableAll")} all`,
			`${k("app.models.clearAll")} clear`,
			`${k("app.models.toggleProvider")} provider`,
			`${k("app.models.reorderUp")}/${k("app.models.reorderDown")} reorder`,
			`${k("app.models.save")} save`,
			count,
		].join(" · ");
		return [
			border,
			"",
			t.fg("accent", t.bold("Model Configuration")),
			// pi's scope is the session's until saved; p2's is the server's, and applies when saved.
			t.fg("muted", `Saved on the server. ${k("app.models.save")} to save.`),
			"",
			...this.#search.render(width),
			"",
			...rows,
			"",
			fit(`${t.fg("dim", `  ${hint}`)}${this.#dirty ? ` ${t.fg("warning", "(unsaved)")}` : ""}`),
			border,
		];
	}

	handleInput(data: string): void {
		const kb = getKeybindings();
		const items = this.#items();
		const total = items.length;
		const item = items[this.#selected];
		const searching = Boolean(this.#search.getValue());
		const changed = () => {
			this.#dirty = true;
		};
		if (kb.matches(data, "tui.select.up")) {
			if (total) this.#selected = this.#selected === 0 ? total - 1 : this.#selected - 1;
		} else if (kb.matches(data, "tui.select.down")) {
			if (total) this.#selected = this.#selected === total - 1 ? 0 : this.#selected + 1;
		} else if (kb.matches(data, "tui.select.pageUp")) this.#selected = Math.max(0, this.#selected - MAX_VISIBLE);
		else if (kb.matches(data, "tui.select.pageDown"))
			this.#selected = Math.min(Math.max(0, total - 1), this.#selected + MAX_VISIBLE);
		else if (matchesId(data, "app.models.reorderUp") || matchesId(data, "app.models.reorderDown")) {
			const enabled = this.#enabled;
			if (!enabled || !item || !enabled.includes(item)) return;
			const from = enabled.indexOf(item);
			const to = from + (matchesId(data, "app.models.reorderUp") ? -1 : 1);
			if (to < 0 || to >= enabled.length) return;
			const list = [...enabled];
			[list[from], list[to]] = [list[to]!, list[from]!];
			this.#enabled = list;
			this.#selected += to - from;
			changed();
		} else if (kb.matches(data, "tui.select.confirm")) {
			if (!item) return;
			if (this.#isEnabled(item)) this.#clear([item]);
			else this.#enable([item]);
			changed();
		} else if (matchesId(data, "app.models.enableAll")) {
			this.#enable(searching ? items : this.#all);
			changed();
		} else if (matchesId(data, "app.models.clearAll")) {
			this.#clear(searching ? items : (this.#enabled ?? this.#all));
			changed();
		} else if (matchesId(data, "app.models.toggleProvider")) {
			const provider = item && this.#byKey.get(item)?.provider;
			if (!provider) return;
			const ofProvider = this.#all.filter((k) => this.#byKey.get(k)!.provider === provider);
			if (ofProvider.every((k) => this.#isEnabled(k))) this.#clear(ofProvider);
			else this.#enable(ofProvider);
			changed();
		} else if (matchesId(data, "app.models.save")) {
			this.#options.onSave((this.#enabled ?? this.#all).map((k) => this.#byKey.get(k)!));
		} else if (matchesKey(data, Key.ctrl("c"))) {
			if (!searching) return this.#options.onCancel();
			this.#search.setValue("");
		} else if (matchesKey(data, Key.escape)) {
			this.#options.onCancel();
		} else {
			const before = this.#search.getValue();
			this.#search.handleInput(data);
			const query = this.#search.getValue();
			if (query !== before && query) this.#selected = 0;
		}
	}
}
