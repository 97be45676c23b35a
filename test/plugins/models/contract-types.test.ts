import { describe, expect, expectTypeOf, test } from "bun:test";
import {
	type modelsContract,
	ResolvedScope,
	type ScopedModel,
	type ScopedModels,
} from "../../../src/plugins/models/contract.ts";
import type { ResultOf, StateOf } from "../../../src/protocol/contract.ts";
import type { ObjectRef } from "../../../src/protocol/object-client.ts";
import type { ThinkingLevel } from "../../../src/protocol/thinking-levels.ts";

type Models = typeof modelsContract;

describe("the models contract's types (issue 37)", () => {
	test("a scope's model is `ScopedModel`: the saved scope and `--models`' resolved one alike", () => {
		expectTypeOf<ScopedModel>().toEqualTypeOf<{
			provider: string;
			id: string;
			thinkingLevel: ThinkingLevel | null;
		}>();
		expectTypeOf<StateOf<Models>["scoped"]>().toEqualTypeOf<ScopedModel[]>();
		expectTypeOf<ResultOf<Models, "resolveScope">["scoped"]>().toEqualTypeOf<ScopedModel[]>();
		expectTypeOf<typeof ScopedModels.infer>().toEqualTypeOf<ScopedModel[]>();
		const call = (models: ObjectRef<Models>) =>
			// @ts-expect-error: `resolveScope` takes patterns, not models.
			models.call("resolveScope", { scoped: [] });
		expect(typeof call).toBe("function");
		expect(
			String(ResolvedScope({ scoped: [{ provider: "p", id: "m", thinkingLevel: "loud" }], problems: [] })),
		).toContain("thinkingLevel must be");
		expect(ResolvedScope({ scoped: [{ provider: "p", id: "m", thinkingLevel: null }], problems: [] })).toEqual({
			scoped: [{ provider: "p", id: "m", thinkingLevel: null }],
			problems: [],
		});
	});
});
