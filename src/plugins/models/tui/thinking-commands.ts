/** Shift+Tab through the model's thinking levels, and /thinking with pi's selector or a level. */
import type { TuiCommand } from "../../../guest/commands.ts";
import type { ThinkingLevel } from "../../../protocol/thinking-levels.ts";
import type { ModelControl } from "./model-control.ts";
import { LEVEL_DESCRIPTIONS, ThinkingSelector } from "./thinking-selector.ts";

const NO_THINKING = "Current model does not support thinking";

function cycleLevelCommand(models: ModelControl): TuiCommand {
	return {
		id: "app.thinking.cycle",
		title: "Cycle thinking level",
		category: "Other",
		when: "chat",
		run: () =>
			models.attempt(async () => {
				const levels = models.levels();
				if (!levels) return models.ui.notice(NO_THINKING);
				if (!models.isOwner()) return models.tellGuest();
				const current = models.chat()?.state?.thinkingLevel as ThinkingLevel;
				await models.setLevel(levels[(levels.indexOf(current) + 1) % levels.length]!);
			}),
	};
}

async function openThinkingSelector(models: ModelControl, levels: readonly ThinkingLevel[]): Promise<void> {
	const { ui, catalog } = models;
	const { state } = await catalog.models();
	const selector = new ThinkingSelector({
		theme: ui.theme,
		levels,
		current: (models.chat()?.state?.thinkingLevel ?? "off") as ThinkingLevel,
		default: state.defaultThinkingLevel,
		keys: (id) => ui.keys(id),
		onCancel: () => ui.closeSelector(),
		onSelect: (level) => {
			ui.closeSelector();
			void models.attempt(() => models.setLevel(level));
		},
		onSetDefault: (level) => {
			ui.closeSelector();
			void models.attempt(async () => {
				if (state.default) await catalog.ref.call("setDefault", { ...state.default, thinkingLevel: level });
				await models.chat()?.call("configure", { thinkingLevel: level });
				ui.notice(`Default thinking level: ${level}`);
			});
		},
	});
	ui.showSelector("thinking", selector);
}

function selectLevelCommand(models: ModelControl): TuiCommand {
	return {
		id: "p2.thinking.select",
		title: "Set thinking level",
		category: "Models",
		slash: {
			name: "thinking",
			argumentHint: "<level>",
			complete: (prefix) =>
				(models.levels() ?? [])
					.filter((l) => l.startsWith(prefix.toLowerCase()))
					.map((l) => ({ value: l, label: l, description: LEVEL_DESCRIPTIONS[l] })),
		},
		run: (args) =>
			models.attempt(async () => {
				if (!models.isOwner()) return models.tellGuest();
				const levels = models.levels();
				if (!levels) return models.ui.notice(NO_THINKING);
				if (!args) return openThinkingSelector(models, levels);
				const level = levels.find((l) => l === args.toLowerCase());
				if (!level) {
					return models.ui.notice(
						`Error: Unknown thinking level "${args}". Available levels: ${levels.join(", ")}`,
						"error",
					);
				}
				return models.setLevel(level);
			}),
	};
}

export function thinkingCommands(models: ModelControl): TuiCommand[] {
	return [cycleLevelCommand(models), selectLevelCommand(models)];
}
