/**
 * /scoped-models: pi's checklist of the models Ctrl+P cycles. It starts from this run's scope when `--models`
 * gave one (pi's session scope), else from the saved one; Ctrl+S saves the choice in the server's settings,
 * and it is this run's scope from then on.
 */
import type { TuiCommand } from "../../../guest/commands.ts";
import type { ModelInfo } from "../contract.ts";
import type { ModelControl } from "./model-control.ts";
import { ScopedModelsSelector } from "./scoped-models-selector.ts";

async function save(models: ModelControl, list: readonly ModelInfo[], enabled: readonly ModelInfo[]): Promise<void> {
	// Every model enabled is pi's "no scope".
	const chosen = enabled.length === list.length ? [] : enabled;
	const patterns = chosen.map((m) => `${m.provider}/${m.id}`);
	await models.catalog.ref.call("setScope", { patterns });
	if (models.runScope.resolve()) {
		models.runScope.choose(chosen.map((m) => ({ provider: m.provider, id: m.id, thinkingLevel: null })));
	}
	models.ui.notice(
		patterns.length ? `Scoped models saved: ${patterns.length}` : "Scoped models cleared: all models cycle",
	);
}

export function scopedModelsCommand(models: ModelControl): TuiCommand {
	const { ui } = models;
	return {
		id: "p2.models.scope",
		title: "Enable/disable models for Ctrl+P cycling",
		category: "Models",
		slash: { name: "scoped-models" },
		run: () =>
			models.attempt(async () => {
				if (!models.isOwner()) return models.tellGuest();
				const { list, state } = await models.catalog.models();
				const enabled = (await models.runScope.resolve()) ?? state.scoped;
				ui.showSelector(
					"scoped-models",
					new ScopedModelsSelector({
						theme: ui.theme,
						models: list,
						enabled,
						keys: (id) => ui.keys(id),
						onCancel: () => ui.closeSelector(),
						onSave: (chosen) => {
							ui.closeSelector();
							void models.attempt(() => save(models, list, chosen));
						},
					}),
				);
			}),
	};
}
