/**
 * What the model reads from here on, changed outside a run: pi's /compact (and its automatic compactions after
 * a long answer or an overflow), where the older part of the context becomes a summary the model writes, and a
 * fresh context with an optional handoff note. The transcript stays; the agent is rebuilt from the entries.
 */
import { ProtocolError } from "../../protocol/codes.ts";
import { contextTokens, estimateRows, firstKeptSeq, KEEP_RECENT_TOKENS, summarize } from "./compaction.ts";
import type { ConversationCore } from "./conversation-core.ts";
import { contextRows } from "./history.ts";
import type { StoredData } from "./view.ts";

/** `manual`: /compact; `threshold`: the context is nearly full; `overflow`: it overflowed. */
export type CompactionReason = "manual" | "threshold" | "overflow";

/** pi's words when /compact finds nothing older than what it keeps. */
export const TOO_SMALL = "Compaction failed: Nothing to compact (session too small)";

export class Compactor {
	readonly #core: ConversationCore;

	constructor(core: ConversationCore) {
		this.#core = core;
	}

	/**
	 * The model summarizes the older part of its context; the latest ~20k tokens stay as they are. Only while
	 * the agent is idle; `by` (or an owner) may cancel it with Escape, and then nothing changes.
	 */
	async compact(
		instructions: string | undefined,
		by: string,
		reason: CompactionReason,
	): Promise<{ tokensBefore: number; aborted: boolean }> {
		const core = this.#core;
		const doing = core.activity.kind;
		if (doing === "run" || doing === "shell") {
			throw new ProtocolError("conflict", "The agent is working: stop it (Escape) or wait, then compact.");
		}
		if (doing === "compaction") throw new ProtocolError("conflict", "A compaction is already running.");
		const model = core.requireModel();
		const all = core.allEntries();
		if (all.at(-1)?.kind === "compaction") throw new ProtocolError("conflict", "Compaction failed: Already compacted");
		const { lead, rows } = contextRows(all);
		const keepTokens = core.ctx.settings.value.compaction?.keepRecentTokens ?? KEEP_RECENT_TOKENS;
		// pi's rule for /compact: what would be kept word for word anyway leaves nothing to summarize. (An
		// automatic compaction follows the measured context instead, which counts what the estimate does not.)
		const tooSmall = reason === "manual" && estimateRows(rows) <= keepTokens;
		if (tooSmall || !rows.some((r) => r.kind === "user" || r.kind === "assistant")) {
			throw new ProtocolError("conflict", TOO_SMALL);
		}
		// After an overflow the person's latest message stays word for word: the run goes on to answer it.
		const lastUser = rows.findLast((r) => r.kind === "user")?.seq;
		const cut = firstKeptSeq(rows, keepTokens);
		const keep = reason === "overflow" && lastUser !== undefined ? Math.min(cut, lastUser) : cut;
		const older = rows.filter((r) => r.seq < keep);
		const tokensBefore = contextTokens(lead?.text ?? null, rows);
		const abort = new AbortController();
		core.begin({ kind: "compaction", abort, by }, [
			{ op: "set", path: ["compacting"], value: { startedAt: Date.now(), reason } },
		]);
		try {
			const written = await summarize({
				streamFn: core.ctx.models.streamFn,
				model,
				lead: lead?.text ?? null,
				rows: older,
				...(instructions ? { instructions } : {}),
				signal: abort.signal,
			});
			if (written.aborted) return { tokensBefore, aborted: true };
			if ("error" in written) throw new ProtocolError("unavailable", `Compaction failed: ${written.error}`);
			const entry = core.store.append(core.id, {
				kind: "compaction",
				data: { kind: "compaction", summary: written.summary, tokensBefore, firstKeptSeq: keep } satisfies StoredData,
			});
			// The next run starts from the summary and the kept entries.
			core.contextReset();
			core.show(entry);
			return { tokensBefore, aborted: false };
		} finally {
			core.end([{ op: "set", path: ["compacting"], value: null }]);
		}
	}

	/** A fresh context from here on: the model sees only the handoff note, if one is given; the transcript stays. */
	newContext(handoff: string | undefined): null {
		const core = this.#core;
		if (core.activity.kind !== "idle") {
			throw new ProtocolError("conflict", "The agent is working: stop it (Escape) or wait, then start a new context.");
		}
		const note = handoff?.trim() ? handoff.trim() : null;
		const entry = core.store.append(core.id, {
			kind: "reset",
			data: { kind: "reset", handoff: note } satisfies StoredData,
		});
		core.contextReset();
		core.show(entry);
		return null;
	}
}
