import { type } from "../../protocol/ark.ts";
import { SessionId } from "../../protocol/common.ts";
import { defineContract, method } from "../../protocol/contract.ts";
import { lazy } from "../../protocol/lazy.ts";

/** pi's selector shows a page of hits; more than this says "refine the search". */
export const MAX_HITS = 41;
export const SNIPPET_CHARS = 120;

export const SearchArgs = lazy(() =>
	type({ query: "2 <= string <= 200", "limit?": `1 <= number.integer <= ${MAX_HITS}` }),
);
export const SearchHit = lazy(() =>
	type({
		session: SessionId,
		conversation: "string",
		seq: "number.integer",
		kind: "'user' | 'assistant'",
		/** The matched text with some context, on one line, at most SNIPPET_CHARS. */
		snippet: `string <= ${SNIPPET_CHARS + 2}`,
		at: "number",
	}),
);
export type SearchHit = typeof SearchHit.infer;
export const SearchResult = lazy(() => type({ hits: SearchHit.array().atMostLength(MAX_HITS), truncated: "boolean" }));

const owner = { state: type({}), methods: ["search"] as const };

/** A literal search over the message text of every session (owners; guests never see other sessions). */
export const searchContract = defineContract({
	name: "search",
	version: 1,
	input: type({}),
	methods: { search: method(SearchArgs, SearchResult) },
	variants: { deviceOwner: owner, owner, full: null, view: null },
});
