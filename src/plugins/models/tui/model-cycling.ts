/** Ctrl+P / Shift+Ctrl+P: the next or previous model of the run's scope, else the saved scope, else every model. */
import type { TuiCommand } from "../../../guest/commands.ts";
import type { ThinkingLevel } from "../../../protocol/thinking-levels.ts";
import type { ModelInfo } from "../contract.ts";
import type { ModelControl } from "./model-control.ts";

interface Step {
	readonly model: ModelInfo;
	readonly level: ThinkingLevel | null;
}

async function cycle(models: ModelControl, direction: 1 | -1): Promise<void> {
	if (!models.isOwner()) return models.tellGuest();
	const { list, state } = await models.catalog.models();
	const scoped = ((await models.runScope.resolve()) ?? state.scoped)
		.map((s) => ({ model: list.find((m) => m.provider === s.provider && m.id === s.id), level: s.thinkingLevel }))
		.filter((s): s is Step => Boolean(s.model));
	const ring: readonly Step[] = scoped.length ? scoped : list.map((model) => ({ model, level: null }));
	if (ring.length < 2) return models.ui.notice(scoped.length ? "Only one model in scope" : "Only one model available");
	const current = models.chat()?.state?.model;
	const at = ring.findIndex((r) => r.model.provider === current?.provider && r.model.id === current?.id);
	const next = ring[(at + direction + ring.length) % ring.length]!;
	const result = await models.useModel(next.model, next.level);
	const level = next.model.reasoning ? (next.level ?? models.chat()?.state?.thinkingLevel ?? "off") : "off";
	if (result !== undefined) models.ui.notice(`Switched to ${next.model.name} (thinking: ${level})`);
}

export function modelCycleCommands(models: ModelControl): TuiCommand[] {
	return [
		{
			id: "app.model.cycleForward",
			title: "Cycle to next model",
			category: "Models",
			when: "chat && owner",
			run: () => models.attempt(() => cycle(models, 1)),
		},
		{
			id: "app.model.cycleBackward",
			title: "Cycle to previous model",
			category: "Models",
			when: "chat && owner",
			run: () => models.attempt(() => cycle(models, -1)),
		},
	];
}
