/**
 * pi's model selector: a search box over the server's usable models, the current one first and marked ✓,
 * the default badged, Tab between all and the scoped models, Enter to use one, Ctrl+S to make it the
 * default. It takes the editor's place while open.
 */
import { type Component, fuzzyFilter, getKeybindings, Input, truncateToWidth } from "@earendil-works/pi-tui";
import { keyText, matchesId } from "../../../guest/keymap.ts";
import type { ThemeRef } from "../../../ui/theme/theme-ref.ts";
import type { ModelInfo } from "../contract.ts";

const MAX_VISIBLE = 10;

export interface ModelRefLike {
	readonly provider: string;
	readonly id: string;
}

export interface ModelSelectorOptions {
	readonly theme: ThemeRef;
	readonly models: readonly ModelInfo[];
	readonly current: ModelRefLike | null;
	readonly default: ModelRefLike | null;
	/** pi's scoped models, in their order; empty when none are set. */
	readonly scoped: readonly ModelRefLike[];
	readonly initialSearch?: string;
	keys(id: string): string[];
	onSelect(model: ModelInfo): void;
	onSetDefault(model: ModelInfo): void;
	onCancel(): void;
}

const same = (a: ModelRefLike | null, b: ModelRefLike) => a?.provider === b.provider && a.id === b.id;

const words = (text: string) =>
	text
		.toLowerCase()
		.split(/[^\p{L}\p{N}]+/u)
		.filter(Boolean);

/**
 * The display name when it says more than the id, as pi decides: "Fake Model" only restates `fake-model`, and
 * "Claude Sonnet 4.5" restates `claude-sonnet-4-5-2025…`; each of the name's words must be one of the id's
 * words, or (longer than one letter) a part of the id written without separators.
 */
export function distinctName(model: Pick<ModelInfo, "id" | "name">): string | undefined {
	const name = model.name.trim();
	if (!name) return undefined;
	const idWords = words(model.id);
	const tokens = new Set(idWords);
	const compact = idWords.join("");
	const covered = (word: string) => tokens.has(word) || (word.length > 1 && compact.includes(word));
	return words(name).every(covered) ? undefined : name;
}

export class ModelSelector implements Component {
	readonly capturesViewportInput = true;
	readonly #options: ModelSelectorOptions;
	readonly #search = new Input();
	readonly #all: ModelInfo[];
	readonly #scoped: ModelInfo[];
	#scope: "all" | "scoped";
	#filtered: ModelInfo[] = [];
	#selected = 0;

	constructor(options: ModelSelectorOptions) {
		this.#options = options;
		const rank = (m: ModelInfo) => (same(options.current, m) ? 0 : same(options.default, m) ? 1 : 2);
		this.#all = [...options.models].sort((a, b) => rank(a) - rank(b) || a.provider.localeCompare(b.provider));
		this.#scoped = options.scoped
			.map((s) => options.models.find((m) => same(s, m)))
			.filter((m): m is ModelInfo => Boolean(m));
		this.#scope = this.#scoped.length ? "scoped" : "all";
		this.#search.onSubmit = () => this.#choose();
		if (options.initialSearch) this.#search.setValue(options.initialSearch);
		this.#filter();
		const at = this.#filtered.findIndex((m) => same(options.current, m));
		if (at >= 0 && !options.initialSearch) this.#selected = at;
	}

	get #active(): ModelInfo[] {
		return this.#scope === "scoped" ? this.#scoped : this.#all;
	}

	#filter(): void {
		const query = this.#search.getValue().trim();
		const active = this.#active;
		const isDefault = (m: ModelInfo) => same(this.#options.default, m);
		if (!query) {
			this.#filtered = active;
			this.#selected = Math.min(this.#selected, Math.max(0, active.length - 1));
			return;
		}
		const matched = fuzzyFilter(
			active,
			query,
			(m) => `${m.id} ${m.provider} ${m.provider}/${m.id} ${m.name}${isDefault(m) ? " default" : ""}`,
		);
		// Typing "default" (or the start of it) puts the default model first, as pi does.
		const wantsDefault = "default".startsWith(query.toLowerCase());
		this.#filtered = wantsDefault ? [...active.filter(isDefault), ...matched.filter((m) => !isDefault(m))] : matched;
		this.#selected = 0;
	}

	#choose(): void {
		const model = this.#filtered[this.#selected];
		if (model) this.#options.onSelect(model);
	}

	invalidate(): void {
		this.#search.invalidate();
	}

	render(width: number): string[] {
		const t = this.#options.theme.current;
		const fit = (line: string) => truncateToWidth(line, width, "");
		const border = t.rule(width);
		const keys = (id: string) => keyText(this.#options.keys(id), { capitalize: true });
		const lines = [border, ""];
		if (this.#scoped.length) {
			const scope = (name: "all" | "scoped") => t.fg(this.#scope === name ? "accent" : "muted", name);
			lines.push(fit(`${t.fg("muted", "Scope: ")}${scope("all")}${t.fg("muted", " | ")}${scope("scoped")}`));
			lines.push(
				fit(`${t.fg("dim", keyText(this.#options.keys("tui.input.tab")))}${t.fg("muted", " scope (all/scoped)")}`),
			);
		} else {
			lines.push(fit(t.fg("warning", "Only showing models from configured providers. Use /login to add providers.")));
		}
		lines.push("", ...this.#search.render(width), "");
		const total = this.#filtered.length;
		const start = Math.max(0, Math.min(this.#selected - Math.floor(MAX_VISIBLE / 2), total - MAX_VISIBLE));
		const end = Math.min(start + MAX_VISIBLE, total);
		for (let i = start; i < end; i++) {
			const model = this.#filtered[i]!;
			const selected = i === this.#selected;
			const name = distinctName(model);
			lines.push(
				fit(
					`${selected ? t.fg("accent", "→ ") : "  "}${same(this.#options.current, model) ? t.fg("accent", "✓ ") : "  "}` +
						`${selected ? t.fg("accent", model.id) : model.id}${name ? t.fg("muted", ` (${name})`) : ""} ` +
						`${t.fg("muted", `[${model.provider}]`)}${same(this.#options.default, model) ? t.fg("muted", " · default") : ""}`,
				),
			);
		}
		if (start > 0 || end < total) lines.push(t.fg("muted", `  (${this.#selected + 1}/${total})`));
		if (!total) lines.push(t.fg("muted", "  No matching models"));
		else lines.push("", fit(t.fg("muted", `  Model Name: ${this.#filtered[this.#selected]!.name}`)));
		lines.push(
			"",
			fit(
				t.fg(
					"dim",
					`  ${keys("tui.select.confirm")} to select · ${keys("app.models.save")} to set as default · ${keys("tui.select.cancel")} to cancel`,
				),
			),
			border,
		);
		return lines;
	}

	handleInput(data: string): void {
		const kb = getKeybindings();
		const total = this.#filtered.length;
		if (kb.matches(data, "tui.input.tab")) {
			if (!this.#scoped.length) return;
			this.#scope = this.#scope === "all" ? "scoped" : "all";
			this.#filter();
			const at = this.#filtered.findIndex((m) => same(this.#options.current, m));
			this.#selected = Math.max(at, 0);
		} else if (kb.matches(data, "tui.select.up")) {
			if (total) this.#selected = this.#selected === 0 ? total - 1 : this.#selected - 1;
		} else if (kb.matches(data, "tui.select.down")) {
			if (total) this.#selected = this.#selected === total - 1 ? 0 : this.#selected + 1;
		} else if (kb.matches(data, "tui.select.confirm")) {
			this.#choose();
		} else if (kb.matches(data, "tui.select.cancel")) {
			this.#options.onCancel();
		} else if (matchesId(data, "app.models.save")) {
			const model = this.#filtered[this.#selected];
			if (model) this.#options.onSetDefault(model);
		} else {
			this.#search.handleInput(data);
			this.#filter();
		}
	}
}
