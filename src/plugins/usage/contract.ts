import { type } from "../../protocol/ark.ts";
import { ConversationInput, UsageTotals } from "../../protocol/common.ts";
import { defineContract } from "../../protocol/contract.ts";
import { lazy } from "../../protocol/lazy.ts";

export type { UsageTotals };

export const UsageState = lazy(() =>
	type({
		/** The viewed conversation. */
		conversation: UsageTotals,
		/** The whole session: every conversation in it. */
		session: UsageTotals,
		/** Cache reads over all input of the latest response in the conversation; null before any. */
		cacheHitRate: "number | null",
		/** The conversation's context size after the latest response; null before any. */
		contextTokens: "number | null",
		/** A compaction or fresh context since that response: the size is not known until the next one (pi's `?`). */
		contextUnknown: "boolean",
	}),
);
export type UsageState = typeof UsageState.infer;

const variant = { state: UsageState, methods: [] as const };

/** Usage numbers for the footer and /session. Everyone who may see the conversation may see these. */
export const usageContract = defineContract({
	name: "usage",
	version: 1,
	input: ConversationInput,
	methods: {},
	variants: { deviceOwner: variant, owner: variant, full: variant, view: variant },
});
