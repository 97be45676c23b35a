import { LiveState, type ServerContext, type ServerPlugin, type StoredEntry } from "../../server/plugin.ts";
import { MAX_HITS, type SearchArgs, type SearchHit, SNIPPET_CHARS, searchContract } from "./contract.ts";

/** Sessions searched per request, newest first: an old catalog answers "truncated" rather than slowly. */
const MAX_SESSIONS = 300;

/** The readable text of a stored user or assistant entry. */
function entryText(entry: StoredEntry): string {
	const data = entry.data as { text?: unknown; message?: { content?: unknown } };
	if (entry.kind === "user") return typeof data.text === "string" ? data.text : "";
	const content = Array.isArray(data.message?.content) ? data.message.content : [];
	return content
		.filter((part): part is { type: "text"; text: string } => part?.type === "text" && typeof part.text === "string")
		.map((part) => part.text)
		.join("\n");
}

/** The match with context on both sides, whitespace folded, control characters removed. */
export function snippet(text: string, query: string): string | undefined {
	const flat = text.replace(/[\p{Cc}\p{Cf}]+/gu, " ").replace(/\s+/g, " ");
	const at = flat.toLowerCase().indexOf(query.toLowerCase());
	if (at < 0) return undefined;
	const room = Math.max(0, SNIPPET_CHARS - query.length);
	const start = Math.max(0, at - Math.floor(room / 3));
	const end = Math.min(flat.length, start + SNIPPET_CHARS);
	return `${start > 0 ? "…" : ""}${flat.slice(start, end).trim()}${end < flat.length ? "…" : ""}`;
}

export function searchSessions(
	ctx: ServerContext,
	args: typeof SearchArgs.infer,
): { hits: SearchHit[]; truncated: boolean } {
	const limit = args.limit ?? MAX_HITS;
	const query = args.query.trim();
	const hits: SearchHit[] = [];
	const sessions = ctx.catalog.list({}).sort((a, b) => b.updatedAt - a.updatedAt);
	let truncated = sessions.length > MAX_SESSIONS;
	for (const session of sessions.slice(0, MAX_SESSIONS)) {
		if (hits.length >= limit) {
			truncated = true;
			break;
		}
		const store = ctx.stores.hold(session.id);
		try {
			for (const entry of store.store.searchText(query, limit - hits.length + 1)) {
				const shown = snippet(entryText(entry), query);
				if (!shown) continue;
				if (hits.length >= limit) {
					truncated = true;
					break;
				}
				hits.push({
					session: session.id,
					conversation: entry.conversation,
					seq: entry.seq,
					kind: entry.kind as "user" | "assistant",
					snippet: shown,
					at: entry.at,
				});
			}
		} finally {
			store.release();
		}
	}
	return { hits, truncated };
}

export const searchPlugin: ServerPlugin = {
	name: "search",
	register(ctx) {
		ctx.host.serve(searchContract, {
			open() {
				return {
					state: new LiveState({}),
					methods: { search: (args) => searchSessions(ctx, args) },
				};
			},
		});
	},
};
