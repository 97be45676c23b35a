import { join } from "node:path";
import type { Api, Model } from "@earendil-works/pi-ai";
import { clampThinkingLevel } from "@earendil-works/pi-ai";
import { ProtocolError } from "../../protocol/codes.ts";
import type { ThinkingLevel } from "../../protocol/common.ts";
import {
	LiveState,
	MODELS_FILE,
	type ServerContext,
	type ServerPlugin,
	thinkingLevelsOf,
} from "../../server/plugin.ts";
import { type ModelInfo, type ModelsState, modelsContract } from "./contract.ts";
import { resolveScope } from "./scope.ts";

function info(model: Model<Api>): ModelInfo {
	return {
		provider: model.provider,
		id: model.id,
		name: model.name ?? model.id,
		contextWindow: model.contextWindow ?? 0,
		maxTokens: model.maxTokens ?? 0,
		reasoning: model.reasoning === true,
		thinkingLevels: thinkingLevelsOf(model),
		input: [...(model.input ?? ["text"])],
	};
}

function snapshot(ctx: ServerContext): ModelsState {
	const usable = ctx.models.usable();
	const chosen = ctx.settings.value.defaultModel;
	const model = (chosen && ctx.models.find(chosen.provider, chosen.id)) || usable[0];
	const problems = [...ctx.models.problems()];
	if (ctx.settings.problem) problems.push(ctx.settings.problem);
	const patterns = ctx.settings.value.enabledModels ?? [];
	const scope = resolveScope(patterns, usable);
	problems.push(...scope.problems);
	return {
		models: usable.map(info),
		default: model ? { provider: model.provider, id: model.id } : null,
		defaultThinkingLevel: ctx.settings.value.defaultThinkingLevel ?? "medium",
		scoped: scope.scoped,
		scopePatterns: [...patterns],
		problems,
		modelsFile: join(ctx.dataDir, MODELS_FILE),
	};
}

/** The owner's model catalog and the defaults for new conversations. */
export const modelsPlugin: ServerPlugin = {
	name: "models",
	register(ctx) {
		const live = new LiveState<ModelsState>(snapshot(ctx));
		const publish = () => {
			const next = snapshot(ctx);
			live.update([{ op: "set", path: [], value: next }]);
			return next;
		};
		ctx.bus.on("models.changed", () => void publish());
		ctx.host.serve(modelsContract, {
			open() {
				return {
					state: live,
					methods: {
						async reload() {
							await ctx.models.reload();
							// Everyone who shows a model follows (this catalog, open conversations).
							ctx.bus.emit({ type: "models.changed" });
							return live.state;
						},
						setScope({ patterns }) {
							ctx.settings.update({ enabledModels: patterns.map((p) => p.trim()).filter(Boolean) });
							return publish();
						},
						resolveScope({ patterns }) {
							return resolveScope(patterns.map((p) => p.trim()).filter(Boolean), ctx.models.usable());
						},
						setDefault(a) {
							const model = ctx.models.find(a.provider, a.id);
							if (!model) throw new ProtocolError("not_found", `no usable model ${a.provider}/${a.id}`);
							const level = a.thinkingLevel
								? model.reasoning
									? (clampThinkingLevel(model, a.thinkingLevel) as ThinkingLevel)
									: "off"
								: undefined;
							ctx.settings.update({
								defaultModel: { provider: model.provider, id: model.id },
								...(level ? { defaultThinkingLevel: level } : {}),
							});
							return publish();
						},
					},
				};
			},
		});
	},
};
