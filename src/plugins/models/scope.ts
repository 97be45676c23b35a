import type { Api, Model } from "@earendil-works/pi-ai";
import { THINKING_LEVELS, type ThinkingLevel } from "../../protocol/common.ts";

export interface ScopedModel {
	readonly provider: string;
	readonly id: string;
	readonly thinkingLevel: ThinkingLevel | null;
}

/** `pattern:level` → the pattern and the level, when the suffix is one of pi's levels. */
function splitLevel(pattern: string): { base: string; level: ThinkingLevel | null } {
	const at = pattern.lastIndexOf(":");
	const suffix = at > 0 ? pattern.slice(at + 1) : "";
	return (THINKING_LEVELS as readonly string[]).includes(suffix)
		? { base: pattern.slice(0, at), level: suffix as ThinkingLevel }
		: { base: pattern, level: null };
}

/**
 * pi's `enabledModels`: each pattern is `provider/id`, an id, or a glob over either (`anthropic/*`, `*sonnet*`),
 * with an optional `:level`. Models keep the patterns' order; a pattern matching nothing is reported, as pi warns.
 */
export function resolveScope(
	patterns: readonly string[],
	models: readonly Model<Api>[],
): { scoped: ScopedModel[]; problems: string[] } {
	const scoped: ScopedModel[] = [];
	const problems: string[] = [];
	const add = (model: Model<Api>, level: ThinkingLevel | null) => {
		if (!scoped.some((s) => s.provider === model.provider && s.id === model.id)) {
			scoped.push({ provider: model.provider, id: model.id, thinkingLevel: level });
		}
	};
	for (const pattern of patterns) {
		const { base, level } = splitLevel(pattern.trim());
		const lower = base.toLowerCase();
		let matches: Model<Api>[];
		if (/[*?[]/.test(base)) {
			const glob = new Bun.Glob(lower);
			matches = models.filter(
				(m) => glob.match(`${m.provider}/${m.id}`.toLowerCase()) || glob.match(m.id.toLowerCase()),
			);
		} else {
			const exact = models.filter((m) => `${m.provider}/${m.id}`.toLowerCase() === lower);
			matches = exact.length ? exact : models.filter((m) => m.id.toLowerCase() === lower);
			if (matches.length > 1) {
				const providers = [...new Set(matches.map((m) => m.provider))].sort();
				problems.push(
					`Pattern "${pattern}" matches several providers: ${providers.join(", ")}. Use provider/id to choose one.`,
				);
				continue;
			}
		}
		if (!matches.length) problems.push(`No models match pattern "${pattern}"`);
		for (const model of matches) add(model, level);
	}
	return { scoped, problems };
}
