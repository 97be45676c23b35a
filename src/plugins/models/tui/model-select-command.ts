/** /model (and Ctrl+L): pi's model selector, or `provider/id` (or an id only one provider has) switched to at once. */
import type { TuiCommand } from "../../../guest/commands.ts";
import type { ModelInfo } from "../contract.ts";
import type { ModelControl } from "./model-control.ts";
import { ModelSelector } from "./model-selector.ts";

/** `provider/id`, or an id only one provider has; else undefined and the selector opens on the text (pi). */
export function findModel(list: readonly ModelInfo[], spec: string): ModelInfo | undefined {
	const lower = spec.toLowerCase();
	const exact = list.filter((m) => `${m.provider}/${m.id}`.toLowerCase() === lower);
	if (exact.length === 1) return exact[0];
	const byId = list.filter((m) => m.id.toLowerCase() === lower);
	return byId.length === 1 ? byId[0] : undefined;
}

export function modelSelectCommand(models: ModelControl): TuiCommand {
	const { ui, catalog } = models;
	const choose = async (model: ModelInfo) => {
		await models.useModel(model);
		if (models.chat()) ui.notice(`Model: ${model.id}`);
	};
	const openSelector = async (search?: string) => {
		const { list, state } = await catalog.models();
		const selector = new ModelSelector({
			theme: ui.theme,
			models: list,
			current: models.chat()?.state?.model ?? null,
			default: state.default,
			scoped: state.scoped,
			...(search ? { initialSearch: search } : {}),
			keys: (id) => ui.keys(id),
			onCancel: () => ui.closeSelector(),
			onSelect: (model) => {
				ui.closeSelector();
				void models.attempt(() => choose(model));
			},
			onSetDefault: (model) => {
				ui.closeSelector();
				void models.attempt(async () => {
					await catalog.ref.call("setDefault", { provider: model.provider, id: model.id });
					if (models.chat()) await models.useModel(model);
					ui.notice(`Default model: ${model.provider}/${model.id}`);
				});
			},
		});
		ui.showSelector("models", selector);
	};
	return {
		id: "app.model.select",
		title: "Select model (opens selector UI)",
		category: "Models",
		when: "chat && owner",
		slash: {
			name: "model",
			argumentHint: "<provider/model>",
			complete: async (prefix) => {
				if (!models.isOwner()) return null;
				const { list } = await catalog.models();
				const lower = prefix.toLowerCase();
				return list
					.map((m) => `${m.provider}/${m.id}`)
					.filter((ref) => ref.toLowerCase().includes(lower))
					.slice(0, 50)
					.map((ref) => ({ value: ref, label: ref }));
			},
		},
		run: (args) =>
			models.attempt(async () => {
				if (!models.isOwner()) return models.tellGuest();
				if (!args) return openSelector();
				const model = findModel((await catalog.models()).list, args);
				if (!model) return openSelector(args);
				await choose(model);
			}),
	};
}
