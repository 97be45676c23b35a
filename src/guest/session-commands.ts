/**
 * Sessions as pi users know them: /resume and Ctrl+R open pi's session selector on the server's catalog,
 * /session shows the footer's numbers with what each covers (seed 1.16). /new and /name are core commands.
 */
import type { Component } from "@earendil-works/pi-tui";
import type { ChatState } from "../plugins/chat/contract.ts";
import type { searchContract } from "../plugins/search/contract.ts";
import type { SessionRow, sessionsContract } from "../plugins/sessions/contract.ts";
import type { StatusState, UsageTotals } from "../plugins/status/contract.ts";
import type { ObjectRef } from "../protocol/object-client.ts";
import { isOwnerRole, type Role } from "../protocol/roles.ts";
import { formatTokens, groupDigits } from "../ui/text.ts";
import type { ThemeRef } from "../ui/theme/theme-ref.ts";
import type { StatusLineData } from "../ui/transcript/status-line.ts";
import type { CommandRegistry } from "./commands.ts";
import { SessionSelector } from "./session-selector.ts";

export interface SessionCommandsContext {
	readonly theme: ThemeRef;
	readonly home: string | undefined;
	role(): Role | undefined;
	sessions(): ObjectRef<typeof sessionsContract> | undefined;
	/** The owner's message search (opened on first use). */
	search(): ObjectRef<typeof searchContract>;
	current(): string | undefined;
	chat(): ChatState | undefined;
	status(): StatusState | undefined;
	open(id: string): void;
	keys(id: string): string[];
	showSelector(id: string, component: Component): void;
	closeSelector(): void;
	/** The open selector, when it is the sessions one. */
	selector(): SessionSelector | undefined;
	requestRender(): void;
	notice(text: string, tone?: StatusLineData["tone"]): void;
	block(title: string, markdown: string): void;
}

export function registerSessionCommands(commands: CommandRegistry, ctx: SessionCommandsContext): void {
	const openSelector = () => {
		const sessions = ctx.sessions();
		if (!sessions?.state) return ctx.notice("The session list is not here yet.");
		if (!isOwnerRole(ctx.role())) return ctx.notice("Only the owner can browse sessions; you were given this one.");
		const current = ctx.current();
		const row = sessions.state.sessions.find((s) => s.id === current);
		const selector = new SessionSelector({
			theme: ctx.theme,
			rows: () => sessions.state?.sessions ?? [],
			current,
			here: row ? { env: row.env, cwd: row.cwd } : undefined,
			home: ctx.home,
			keys: ctx.keys,
			now: () => Date.now(),
			search: async (query) => {
				const search = ctx.search();
				await search.ready;
				return search.call("search", { query });
			},
			open: (id) => {
				selector.dispose();
				ctx.closeSelector();
				if (id !== ctx.current()) ctx.open(id);
			},
			rename: async (id, title) => {
				await sessions.call("rename", { id, title });
			},
			archive: async (id, archived) => {
				await sessions.call(archived ? "archive" : "restore", { id });
			},
			pin: async (id, pinned) => {
				await sessions.call("pin", { id, pinned });
			},
			close: () => ctx.closeSelector(),
			requestRender: ctx.requestRender,
		});
		ctx.showSelector("sessions", selector);
	};

	commands.register({
		id: "p2.sessions",
		title: "Browse and resume sessions",
		category: "Sessions",
		keys: ["ctrl+r"],
		when: "chat && !overlay",
		slash: { name: "sessions" },
		run: openSelector,
	});
	commands.register({
		id: "app.session.resume",
		title: "Resume a different session",
		category: "Sessions",
		when: "chat && !overlay",
		slash: { name: "resume" },
		run: openSelector,
	});
	commands.register({
		id: "p2.sessions.toggleArchived",
		title: "Show archived sessions",
		category: "Sessions",
		keys: ["ctrl+a"],
		when: "overlay:sessions",
		palette: false,
		run: () => ctx.selector()?.toggleArchived(),
	});
	commands.register({
		id: "p2.sessions.pin",
		title: "Pin or unpin the session",
		category: "Sessions",
		keys: ["alt+p"],
		when: "overlay:sessions",
		palette: false,
		run: () => ctx.selector()?.togglePin(),
	});
	commands.register({
		id: "p2.session.info",
		title: "Show session info and stats",
		category: "Sessions",
		slash: { name: "session" },
		run: () => {
			const row = ctx.sessions()?.state?.sessions.find((s) => s.id === ctx.current());
			if (!row) return ctx.notice("No session is open yet.");
			ctx.block("Session Info", sessionInfo(row, ctx.chat(), ctx.status()));
		},
	});
}

const money = (n: number) => `$${n.toFixed(3)}`;
const count = (n: number) => groupDigits(n);

function usage(title: string, scope: string, u: UsageTotals | undefined): string[] {
	if (!u) return [`**${title}** (${scope})`, "", "- none yet"];
	const prompt = u.input + u.cacheRead + u.cacheWrite;
	return [
		`**${title}** (${scope})`,
		"",
		`- Input: ${count(prompt)}${prompt > 0 && u.cacheRead > 0 ? ` (cached ${count(u.cacheRead)}, ${((u.cacheRead / prompt) * 100).toFixed(1)}%)` : ""}`,
		`- Output: ${count(u.output)}`,
		`- Total: ${count(prompt + u.output)}`,
		`- Cost: ${money(u.cost)}`,
	];
}

/** pi's /session, with the scope of each number said (seed 1.16). */
export function sessionInfo(row: SessionRow, chat: ChatState | undefined, status: StatusState | undefined): string {
	const entries = chat?.entries ?? [];
	const model = chat?.model;
	const context = status?.contextTokens ?? null;
	const window = model?.contextWindow ?? 0;
	const lines = [
		...(row.title ? [`- Name: ${row.title}`] : []),
		`- ID: ${row.id}`,
		`- Where: ${row.env}:${row.cwd}${row.branch ? ` (${row.branch})` : ""}`,
		`- Model: ${model ? `${model.provider}/${model.id}${model.reasoning ? ` · thinking ${chat?.thinkingLevel}` : ""}` : "the server's default"}`,
		"",
		"**Messages** (loaded in this view)",
		"",
		`- User: ${entries.filter((e) => e.kind === "user").length}`,
		`- Assistant: ${entries.filter((e) => e.kind === "assistant").length}`,
		`- Tools: ${entries.filter((e) => e.kind === "tool").length} results`,
		...(chat?.older ? ["- Older messages are not loaded; scroll up to load them"] : []),
		"",
		...usage("Tokens", "this conversation", status?.conversation),
		"",
		...usage("Tokens", "the whole session, every conversation", status?.session),
		"",
		"**Context** (this conversation, after the latest answer)",
		"",
		`- ${context === null ? "no answer yet" : `${formatTokens(context)}${window ? ` of ${formatTokens(window)} (${((context / window) * 100).toFixed(1)}%)` : ""}`}`,
		...(status?.cacheHitRate != null
			? [`- Cache hit rate of the latest answer: ${(status.cacheHitRate * 100).toFixed(1)}%`]
			: []),
	];
	return lines.join("\n");
}
