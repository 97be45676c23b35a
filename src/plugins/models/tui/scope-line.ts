/**
 * pi's "Model scope: …" line under the startup header: the models Ctrl+P cycles (each id with its pinned
 * `:level`) and the key that cycles them, when a scope is set (`--models`, else the saved one) and the start's
 * details show (quietStartup false, or `--verbose`). It follows the scope, the keys and the theme as they change.
 */
import { type Component, Text } from "@earendil-works/pi-tui";
import { keyText } from "../../../guest/keymap.ts";
import type { ThemeRef } from "../../../ui/theme/theme-ref.ts";
import type { ScopedModel } from "../contract.ts";

export interface ScopeLineOptions {
	readonly theme: ThemeRef;
	/** The scope Ctrl+P cycles now; undefined or empty for none (every model). */
	scope(): readonly ScopedModel[] | undefined;
	/** Whether pi would show its startup details now. */
	detailsShown(): boolean;
	keys(id: string): string[];
}

/** The line's text, unstyled parts apart: undefined when there is no scope to name. */
export function scopeLineParts(
	scope: readonly ScopedModel[] | undefined,
	cycleKeys: readonly string[],
): { models: string; hint: string } | undefined {
	if (!scope?.length) return undefined;
	const models = scope.map((s) => `${s.id}${s.thinkingLevel ? `:${s.thinkingLevel}` : ""}`).join(", ");
	const hint = cycleKeys.length ? ` (${keyText(cycleKeys, { capitalize: true })} to cycle)` : "";
	return { models: `Model scope: ${models}`, hint };
}

export class ScopeLine implements Component {
	readonly #options: ScopeLineOptions;

	constructor(options: ScopeLineOptions) {
		this.#options = options;
	}

	render(width: number): string[] {
		const { theme, scope, detailsShown, keys } = this.#options;
		if (!detailsShown()) return [];
		const parts = scopeLineParts(scope(), keys("app.model.cycleForward"));
		if (!parts) return [];
		const t = theme.current;
		// pi: a blank line after the header, then the line indented by one.
		return ["", ...new Text(t.fg("dim", parts.models) + t.fg("muted", parts.hint), 1, 0).render(width)];
	}

	invalidate(): void {}
}
