/**
 * pi's provider list for /login and /logout: a title, pi's search line, then each provider with how it is
 * configured (`• not configured`, `✓ configured`, `✓ env: ANTHROPIC_API_KEY`), eight at a time. The kind of
 * sign-in (`[API key]`, `[account]`) is named only when the list mixes kinds, as pi does.
 */
import { type Component, fuzzyFilter, getKeybindings, Input, truncateToWidth } from "@earendil-works/pi-tui";
import { visibleText } from "../../ui/text.ts";
import type { ThemeRef } from "../../ui/theme/theme-ref.ts";
import type { AuthMethod, LoginProvider } from "./contract.ts";

const MAX_VISIBLE = 8;

/** One row: a provider, by the sign-in it offers here. */
export interface ProviderChoice {
	readonly provider: LoginProvider;
	readonly method: AuthMethod;
}

export interface ProviderSelectorOptions {
	readonly theme: ThemeRef;
	readonly title: string;
	readonly choices: readonly ProviderChoice[];
	/** What the list says when nothing is in it. */
	readonly empty: string;
	onSelect(choice: ProviderChoice): void;
	onCancel(): void;
}

/** pi's words for a kind of sign-in. */
function kindOf(method: AuthMethod, provider: LoginProvider): string {
	return method === "api_key" ? "API key" : provider.oauth?.subscription === false ? "account" : "subscription";
}

export class ProviderSelector implements Component {
	readonly capturesViewportInput = true;
	readonly #options: ProviderSelectorOptions;
	readonly #search = new Input();
	readonly #mixed: boolean;
	#selected = 0;

	constructor(options: ProviderSelectorOptions) {
		this.#options = options;
		this.#mixed = new Set(options.choices.map((c) => c.method)).size > 1;
		this.#search.onSubmit = () => this.#choose();
	}

	#matches(): ProviderChoice[] {
		const query = this.#search.getValue();
		const { choices } = this.#options;
		return query
			? fuzzyFilter([...choices], query, (c) => `${c.provider.name} ${c.provider.id} ${c.method}`)
			: [...choices];
	}

	#choose(): void {
		const choice = this.#matches()[this.#selected];
		if (choice) this.#options.onSelect(choice);
	}

	/** pi's mark for how a provider is configured, for the sign-in this row offers. */
	#status(choice: ProviderChoice): string {
		const t = this.#options.theme.current;
		const { provider, method } = choice;
		if (!provider.signedIn) return t.fg("muted", " • not configured");
		if (provider.signedIn !== method) {
			return `${t.fg("muted", " • ")}${t.fg("warning", `${kindOf(provider.signedIn, provider)} configured`)}`;
		}
		const source = provider.source;
		if (!source || source === "stored credential") return t.fg("success", " ✓ configured");
		const env = /^[A-Z][A-Z0-9_]*(?:, [A-Z][A-Z0-9_]*)*$/.test(source);
		return t.fg("success", ` ✓ ${env ? `env: ${source}` : visibleText(source, false)}`);
	}

	invalidate(): void {
		this.#search.invalidate();
	}

	render(width: number): string[] {
		const t = this.#options.theme.current;
		const fit = (line: string) => truncateToWidth(line, width, "");
		const border = t.rule(width);
		const matches = this.#matches();
		this.#selected = Math.min(this.#selected, Math.max(0, matches.length - 1));
		const start = Math.max(0, Math.min(this.#selected - Math.floor(MAX_VISIBLE / 2), matches.length - MAX_VISIBLE));
		const end = Math.min(start + MAX_VISIBLE, matches.length);
		const rows: string[] = [];
		for (let i = start; i < end; i++) {
			const choice = matches[i]!;
			const name = visibleText(choice.provider.name, false);
			const kind = this.#mixed ? t.fg("muted", ` [${kindOf(choice.method, choice.provider)}]`) : "";
			const shown = i === this.#selected ? `${t.fg("accent", "→ ")}${t.fg("accent", name)}` : `  ${t.fg("text", name)}`;
			rows.push(fit(` ${shown}${kind}${this.#status(choice)}`));
		}
		if (start > 0 || end < matches.length)
			rows.push(fit(t.fg("muted", `   (${this.#selected + 1}/${matches.length})`)));
		if (!matches.length) {
			const none = this.#options.choices.length ? "No matching providers" : this.#options.empty;
			rows.push(fit(t.fg("muted", `   ${none}`)));
		}
		return [
			border,
			"",
			fit(` ${t.fg("accent", t.bold(this.#options.title))}`),
			"",
			...this.#search.render(width),
			"",
			...rows,
			"",
			border,
		];
	}

	handleInput(data: string): void {
		const kb = getKeybindings();
		const total = this.#matches().length;
		if (kb.matches(data, "tui.select.up")) {
			if (total) this.#selected = Math.max(0, this.#selected - 1);
		} else if (kb.matches(data, "tui.select.down")) {
			if (total) this.#selected = Math.min(total - 1, this.#selected + 1);
		} else if (kb.matches(data, "tui.select.pageUp")) this.#selected = Math.max(0, this.#selected - MAX_VISIBLE);
		else if (kb.matches(data, "tui.select.pageDown"))
			this.#selected = Math.min(Math.max(0, total - 1), this.#selected + MAX_VISIBLE);
		else if (kb.matches(data, "tui.select.confirm")) this.#choose();
		else if (kb.matches(data, "tui.select.cancel")) this.#options.onCancel();
		else {
			const before = this.#search.getValue();
			this.#search.handleInput(data);
			const query = this.#search.getValue();
			if (query !== before) this.#selected = query ? 0 : this.#selected;
		}
	}
}
