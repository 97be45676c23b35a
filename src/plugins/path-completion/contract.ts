import { type } from "../../protocol/ark.ts";
import { SessionId } from "../../protocol/common.ts";
import { defineContract, method } from "../../protocol/contract.ts";
import { lazy } from "../../protocol/lazy.ts";

/** At most this many suggestions come back for one request. */
export const MAX_SUGGESTIONS = 50;

export const CompleteArgs = lazy(() =>
	type({
		/**
		 * What is typed: a path relative to the session's directory (owners also `~/…` and absolute paths, as
		 * pi; a guest's completion never leaves the session's directory), or an `@` query.
		 */
		prefix: "string <= 1024",
		/** `path`: the entries of the prefix's directory that start with its last part (Tab); `fuzzy`: `@` search. */
		mode: "'path' | 'fuzzy'",
	}),
);
export const FileSuggestion = lazy(() => type({ path: "string", dir: "boolean" }));
export type FileSuggestion = typeof FileSuggestion.infer;
export const CompleteResult = lazy(() => type({ items: FileSuggestion.array(), truncated: "boolean" }));

const variant = { state: type({ cwd: "string" }), methods: ["complete"] as const };

/**
 * The session directory's files for the editor: Tab completes a path, `@` finds a file by a fuzzy query
 * (pi's editor). For those who may send (a full guest can already run commands there); view guests cannot.
 */
export const pathCompletionContract = defineContract({
	name: "path-completion",
	version: 1,
	input: lazy(() => type({ session: SessionId })),
	methods: { complete: method(CompleteArgs, CompleteResult) },
	variants: { deviceOwner: variant, owner: variant, full: variant, view: null },
});
