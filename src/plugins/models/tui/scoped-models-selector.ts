/**
 * /scoped-models: pi's checklist of the models Ctrl+P cycles through. Enter toggles, Ctrl+A enables all,
 * Ctrl+X clears, Alt+Up/Alt+Down reorder, Ctrl+S saves to the server's settings, Esc cancels.
 */
import { type Component, getKeybindings, truncateToWidth } from "@earendil-works/pi-tui";
import { keyText, matchesId } from "../../../guest/keymap.ts";
import type { ThemeRef } from "../../../ui/theme/theme-ref.ts";
import type { ModelInfo } from "../contract.ts";
import type { ModelRefLike } from "./model-selector.ts";

const MAX_VISIBLE = 10;

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
	/** Enabled models first, in the scope's order, then the rest. */
	#rows: ModelInfo[];
	readonly #enabled: Set<string>;
	#selected = 0;

	constructor(options: ScopedModelsSelectorOptions) {
		this.#options = options;
		const all = [...options.models];
		const scoped = options.enabled.length ? options.enabled.map(key) : all.map(key);
		this.#enabled = new Set(scoped.filter((k) => all.some((m) => key(m) === k)));
		const order = (m: ModelInfo) => {
			const at = scoped.indexOf(key(m));
			return at < 0 ? Number.MAX_SAFE_INTEGER : at;
		};
		this.#rows = all.sort((a, b) => order(a) - order(b));
	}

	invalidate(): void {}

	render(width: number): string[] {
		const t = this.#options.theme.current;
		const fit = (line: string) => truncateToWidth(line, width, "");
		const k = (id: string) => keyText(this.#options.keys(id), { capitalize: true });
		const border = t.rule(width);
		const total = this.#rows.length;
		const start = Math.max(0, Math.min(this.#selected - Math.floor(MAX_VISIBLE / 2), total - MAX_VISIBLE));
		const rows = this.#rows.slice(start, start + MAX_VISIBLE).map((m, i) => {
			const selected = start + i === this.#selected;
			const on = this.#enabled.has(key(m));
			return fit(
				`${selected ? t.fg("accent", "→ ") : "  "}${on ? t.fg("accent", "✓ ") : "  "}${selected ? t.fg("accent", m.id) : m.id} ${t.fg("muted", `[${m.provider}]`)}`,
			);
		});
		const count = this.#enabled.size === total ? "all enabled" : `${this.#enabled.size}/${total} enabled`;
		return [
			border,
			"",
			t.bold(t.fg("accent", "Model Configuration")),
			t.fg("muted", `Saved on the server. ${k("app.models.save")} to save.`),
			"",
			...rows,
			...(total > MAX_VISIBLE ? [t.fg("muted", `  (${this.#selected + 1}/${total})`)] : []),
			"",
			fit(
				t.fg(
					"dim",
					`  ${k("tui.select.confirm")} toggle · ${k("app.models.enableAll")} all · ${k("app.models.clearAll")} clear · ${k("app.models.reorderUp")}/${k("app.models.reorderDown")} reorder · ${k("app.models.save")} save · ${count}`,
				),
			),
			border,
		];
	}

	handleInput(data: string): void {
		const kb = getKeybindings();
		const total = this.#rows.length;
		const row = this.#rows[this.#selected];
		if (matchesId(data, "app.models.save")) {
			this.#options.onSave(this.#rows.filter((m) => this.#enabled.has(key(m))));
		} else if (matchesId(data, "app.models.enableAll")) {
			for (const m of this.#rows) this.#enabled.add(key(m));
		} else if (matchesId(data, "app.models.clearAll")) {
			this.#enabled.clear();
		} else if (matchesId(data, "app.models.reorderUp") || matchesId(data, "app.models.reorderDown")) {
			const to = this.#selected + (matchesId(data, "app.models.reorderUp") ? -1 : 1);
			if (!row || to < 0 || to >= total) return;
			const rows = [...this.#rows];
			rows.splice(this.#selected, 1);
			rows.splice(to, 0, row);
			this.#rows = rows;
			this.#selected = to;
		} else if (kb.matches(data, "tui.select.up")) {
			if (total) this.#selected = this.#selected === 0 ? total - 1 : this.#selected - 1;
		} else if (kb.matches(data, "tui.select.down")) {
			if (total) this.#selected = this.#selected === total - 1 ? 0 : this.#selected + 1;
		} else if (kb.matches(data, "tui.select.confirm")) {
			if (!row) return;
			if (this.#enabled.has(key(row))) this.#enabled.delete(key(row));
			else this.#enabled.add(key(row));
		} else if (kb.matches(data, "tui.select.cancel")) {
			this.#options.onCancel();
		}
	}
}
