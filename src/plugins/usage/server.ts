import { ProtocolError } from "../../protocol/codes.ts";
import type { UsageTotals } from "../../protocol/common.ts";
import {
	LiveState,
	maySeeSession,
	type ServerContext,
	type ServerPlugin,
	type SessionStore,
} from "../../server/plugin.ts";
import { type UsageState, usageContract } from "./contract.ts";

const ZERO: UsageTotals = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0 };
const SCAN_PAGE = 500;

function add(a: UsageTotals, b: UsageTotals): UsageTotals {
	return {
		input: a.input + b.input,
		output: a.output + b.output,
		cacheRead: a.cacheRead + b.cacheRead,
		cacheWrite: a.cacheWrite + b.cacheWrite,
		cost: a.cost + b.cost,
	};
}

interface Latest {
	contextTokens: number | null;
	cacheHitRate: number | null;
	/** A compaction or fresh context came after the latest answer. */
	unknown?: boolean;
}

interface Totals {
	session: UsageTotals;
	conversations: Map<string, UsageTotals & Latest>;
}

/** Reads usage out of a session's assistant entries; the chat plugin's stored shape is only read, never assumed whole. */
function usageOf(data: unknown): (UsageTotals & Latest) | null {
	const usage = (data as { message?: { usage?: Record<string, unknown> } } | null)?.message?.usage;
	if (!usage) return null;
	const n = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : 0);
	const cost = (usage.cost as { total?: unknown } | undefined)?.total;
	const u = {
		input: n(usage.input),
		output: n(usage.output),
		cacheRead: n(usage.cacheRead),
		cacheWrite: n(usage.cacheWrite),
		cost: n(cost),
	};
	const totalInput = u.input + u.cacheRead + u.cacheWrite;
	// An answer that failed or was stopped measured no context (pi skips it): only its tokens count.
	const stop = (data as { message?: { stopReason?: unknown } }).message?.stopReason;
	const measured = stop !== "error" && stop !== "aborted" && totalInput + u.output > 0;
	return {
		...u,
		contextTokens: measured ? totalInput + u.output : null,
		cacheHitRate: measured && totalInput > 0 ? u.cacheRead / totalInput : null,
	};
}

function scan(store: SessionStore): Totals {
	const totals: Totals = { session: ZERO, conversations: new Map() };
	for (const conversation of store.conversations()) {
		let sum: UsageTotals & Latest = { ...ZERO, contextTokens: null, cacheHitRate: null };
		let after = 0;
		for (;;) {
			const page = store.since(conversation, after, SCAN_PAGE);
			for (const entry of page.entries) {
				if (entry.kind === "compaction" || entry.kind === "reset") sum = { ...sum, contextTokens: null, unknown: true };
				if (entry.kind !== "assistant") continue;
				const u = usageOf(entry.data);
				if (u?.contextTokens === null) sum = { ...sum, ...add(sum, u) };
				else if (u)
					sum = { ...add(sum, u), contextTokens: u.contextTokens, cacheHitRate: u.cacheHitRate, unknown: false };
			}
			const last = page.entries[page.entries.length - 1];
			if (!page.more || !last) break;
			after = last.seq;
		}
		totals.conversations.set(conversation, sum);
		totals.session = add(totals.session, sum);
	}
	return totals;
}

/** Usage for the footer and /session, per conversation and per session. */
class UsageKeeper {
	#ctx: ServerContext;
	#totals = new Map<string, Totals>();
	#views = new Map<string, { live: LiveState<UsageState>; holders: number }>();

	constructor(ctx: ServerContext) {
		this.#ctx = ctx;
		ctx.bus.on("usage.changed", (e) => {
			const totals = this.#totals.get(e.session);
			if (!totals) return;
			const prev = totals.conversations.get(e.conversation) ?? { ...ZERO, contextTokens: null, cacheHitRate: null };
			totals.conversations.set(
				e.conversation,
				e.contextTokens === null
					? { ...prev, ...add(prev, e.usage) }
					: { ...add(prev, e.usage), contextTokens: e.contextTokens, cacheHitRate: e.cacheHitRate, unknown: false },
			);
			totals.session = add(totals.session, e.usage);
			this.#publish(e.session);
		});
		ctx.bus.on("context.reset", (e) => {
			const totals = this.#totals.get(e.session);
			const prev = totals?.conversations.get(e.conversation);
			if (!totals || !prev) return;
			totals.conversations.set(e.conversation, { ...prev, contextTokens: null, unknown: true });
			this.#publish(e.session);
		});
	}

	#publish(session: string): void {
		for (const [key, view] of this.#views) {
			if (key.startsWith(`${session}/`)) {
				view.live.update([{ op: "set", path: [], value: this.#state(session, key.slice(session.length + 1)) }]);
			}
		}
	}

	#state(session: string, conversation: string): UsageState {
		const totals = this.#totals.get(session);
		const c = totals?.conversations.get(conversation);
		return {
			conversation: c
				? { input: c.input, output: c.output, cacheRead: c.cacheRead, cacheWrite: c.cacheWrite, cost: c.cost }
				: ZERO,
			session: totals?.session ?? ZERO,
			cacheHitRate: c?.cacheHitRate ?? null,
			contextTokens: c?.contextTokens ?? null,
			contextUnknown: c?.unknown ?? false,
		};
	}

	open(session: string, conversation: string) {
		if (!this.#ctx.catalog.get(session)) throw new ProtocolError("not_found", `no session ${session}`);
		if (!this.#totals.has(session)) this.#totals.set(session, scan(this.#ctx.stores.get(session)));
		const key = `${session}/${conversation}`;
		let view = this.#views.get(key);
		if (!view) {
			view = { live: new LiveState(this.#state(session, conversation)), holders: 0 };
			this.#views.set(key, view);
		}
		view.holders++;
		const held = view;
		return {
			state: held.live,
			methods: {},
			release: () => {
				if (--held.holders > 0) return;
				this.#views.delete(key);
				if (![...this.#views.keys()].some((k) => k.startsWith(`${session}/`))) this.#totals.delete(session);
			},
		};
	}
}

export const usagePlugin: ServerPlugin = {
	name: "usage",
	register(ctx) {
		const usage = new UsageKeeper(ctx);
		ctx.host.serve(usageContract, {
			open(input, { principal }) {
				if (!maySeeSession(principal, input.session))
					throw new ProtocolError("forbidden", "this session is not shared with you");
				return usage.open(input.session, input.conversation);
			},
		});
	},
};
