import { type } from "../../protocol/ark.ts";
import { ThinkingLevel } from "../../protocol/common.ts";
import { defineContract, method } from "../../protocol/contract.ts";
import { lazy } from "../../protocol/lazy.ts";

export const ModelInfo = lazy(() =>
	type({
		provider: "string",
		id: "string",
		name: "string",
		contextWindow: "number",
		maxTokens: "number",
		reasoning: "boolean",
		thinkingLevels: ThinkingLevel.array(),
		input: "string[]",
	}),
);
export type ModelInfo = typeof ModelInfo.infer;

export const ModelRef = lazy(() => type({ provider: "string", id: "string" }));

export const ScopedModels = lazy(() =>
	type({ provider: "string", id: "string", thinkingLevel: ThinkingLevel.or("null") }).array(),
);
/** One model of a scope, with the thinking level its pattern pinned (`anthropic/*:high`), else null. */
export type ScopedModel = (typeof ScopedModels.infer)[number];

export const ModelsState = lazy(() =>
	type({
		models: ModelInfo.array(),
		default: ModelRef.or("null"),
		defaultThinkingLevel: ThinkingLevel,
		/** pi's scoped models, resolved from the server's `enabledModels` patterns (in their order). */
		scoped: ScopedModels,
		scopePatterns: "string[]",
		/** Problems with the server's model configuration (e.g. a bad models.json), for the owner to fix. */
		problems: "string[]",
		/** Where the server's models.json is, on the server (the catalog is the owners' alone). */
		modelsFile: "string",
	}),
);
export type ModelsState = typeof ModelsState.infer;

export const SetScopeArgs = lazy(() => type({ patterns: type("string <= 256").array().atMostLength(200) }));

export const SetDefaultArgs = lazy(() => type({ provider: "string", id: "string", "thinkingLevel?": ThinkingLevel }));

/** Patterns resolved against the catalog without saving them (`--models`, for one run). */
export const ResolvedScope = lazy(() => type({ scoped: ScopedModels, problems: "string[]" }));

const owner = { state: ModelsState, methods: ["setDefault", "setScope", "reload", "resolveScope"] as const };

/** The catalog of usable models and the defaults for new sessions. Owner only: guests never see it. */
export const modelsContract = defineContract({
	name: "models",
	version: 1,
	input: type({}),
	methods: {
		setDefault: method(SetDefaultArgs, ModelsState),
		reload: method(type("null | undefined"), ModelsState),
		/** Saves pi's `enabledModels` in the server's settings (an empty list: every model). */
		setScope: method(SetScopeArgs, ModelsState),
		/** pi's `--models`: the scope these patterns make, for this run only (nothing is saved). */
		resolveScope: method(SetScopeArgs, ResolvedScope),
	},
	variants: { deviceOwner: owner, owner, full: null, view: null },
});
