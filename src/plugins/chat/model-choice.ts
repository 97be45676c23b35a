/**
 * Which model answers in a session and how hard it thinks: the session's choice, else the server's default,
 * else the first usable model; a thinking level the model does not have is clamped to one it has.
 */
import type { Api, Model } from "@earendil-works/pi-ai";
import { clampThinkingLevel } from "@earendil-works/pi-ai";
import { ProtocolError } from "../../protocol/codes.ts";
import type { ThinkingLevel } from "../../protocol/common.ts";
import { type ServerContext, thinkingLevelsOf } from "../../server/plugin.ts";
import type { ConfigureArgs, ModelState } from "./contract.ts";

/** What pi says when nothing can answer; p2 never invents an answer instead. */
export const NO_MODELS_TEXT =
	"No models available. Use /login to log into a provider via OAuth or API key, or add a provider to models.json in the server's data directory.";

export function modelState(model: Model<Api> | undefined): ModelState {
	if (!model) return null;
	return {
		provider: model.provider,
		id: model.id,
		name: model.name ?? model.id,
		contextWindow: model.contextWindow ?? 0,
		reasoning: model.reasoning === true,
		thinkingLevels: thinkingLevelsOf(model),
	};
}

/**
 * The model that answers in the session now; undefined when no model is usable. `own`: the conversation's own
 * choice (`provider/id`, a subagent's), before the session's.
 */
export function resolveModel(ctx: ServerContext, session: string, own: string | null = null): Model<Api> | undefined {
	const { models, settings } = ctx;
	const mine = own ? findModel(ctx, own) : undefined;
	if (mine) return mine;
	const record = ctx.catalog.get(session);
	const [provider, ...rest] = (record?.model ?? "").split("/");
	const chosen = provider && rest.length ? models.find(provider, rest.join("/")) : undefined;
	if (chosen) return chosen;
	const fallback = settings.value.defaultModel;
	return (fallback && models.find(fallback.provider, fallback.id)) || models.usable()[0];
}

/** A usable model named `provider/id`. */
export function findModel(ctx: ServerContext, key: string): Model<Api> | undefined {
	const [provider, ...rest] = key.split("/");
	return provider && rest.length ? ctx.models.find(provider, rest.join("/")) : undefined;
}

/** The model that answers, or the refusal pi gives when none can. */
export function requireModel(ctx: ServerContext, session: string, own: string | null = null): Model<Api> {
	const model = resolveModel(ctx, session, own);
	if (!model) throw new ProtocolError("unavailable", NO_MODELS_TEXT);
	return model;
}

export function resolveThinking(ctx: ServerContext, session: string, model: Model<Api> | undefined): ThinkingLevel {
	if (!model?.reasoning) return "off";
	const record = ctx.catalog.get(session);
	const wanted = (record?.thinkingLevel ?? ctx.settings.value.defaultThinkingLevel ?? "medium") as ThinkingLevel;
	return clampThinkingLevel(model, wanted) as ThinkingLevel;
}

/**
 * The session's model and thinking level as asked (either may be left as it is), stored in its catalog row.
 * `current` is the level in effect now. `own`: a subagent's conversation, whose model is its own (the caller
 * stores it) and leaves the session's alone.
 */
export function chooseModel(
	ctx: ServerContext,
	session: string,
	args: typeof ConfigureArgs.infer,
	current: ThinkingLevel,
	own: string | null = null,
): { model: Model<Api>; level: ThinkingLevel } {
	let model = resolveModel(ctx, session, own);
	if (args.model) {
		const found = ctx.models.find(args.model.provider, args.model.id);
		if (!found) throw new ProtocolError("not_found", `no usable model ${args.model.provider}/${args.model.id}`);
		model = found;
	}
	if (!model) throw new ProtocolError("unavailable", NO_MODELS_TEXT);
	const wanted = args.thinkingLevel ?? current;
	const level = model.reasoning ? (clampThinkingLevel(model, wanted) as ThinkingLevel) : "off";
	if (own !== null) return { model, level };
	ctx.catalog.update(session, { model: `${model.provider}/${model.id}`, thinkingLevel: level });
	ctx.bus.emit({ type: "session.activity", session });
	return { model, level };
}
