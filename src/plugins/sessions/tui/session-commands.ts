/**
 * Sessions as pi users know them: /new and /name, /resume and Ctrl+R open pi's session selector on the
 * server's catalog, /session shows the footer's numbers with what each covers.
 */

import { CommandRefused } from "../../../guest/access.ts";
import type { TuiCommand } from "../../../guest/commands.ts";
import type { GuestContext } from "../../../guest/plugin.ts";
import type { UsageTotals } from "../../../protocol/common.ts";
import { ENV_PREFIX } from "../../../protocol/env-name.ts";
import type { ObjectRef } from "../../../protocol/object-client.ts";
import { isOwnerRole } from "../../../protocol/roles.ts";
import { formatTokens, groupDigits } from "../../../ui/text.ts";
import type { SessionRow, sessionsContract } from "../contract.ts";
import { completePlace, readPlace, sessionPlace } from "./location-commands.ts";
import type { ChatState, UsageState } from "./peers.ts";
import { SessionSelector } from "./session-selector.ts";

/** Sessions are the owner's to browse: a guest was given one. */
const BROWSE = { role: "owner", to: "browse sessions; you were given this one" } as const;

export type Catalog = () => ObjectRef<typeof sessionsContract> | undefined;

function registerAll(ctx: GuestContext, commands: readonly TuiCommand[]): () => void {
	const removals = commands.map((command) => ctx.commands.register(command));
	return () => {
		for (const remove of removals) remove();
	};
}

/**
 * Where a new session starts: the open session's directory, or where p2 started when that directory is gone
 * (pi's "continue in" that one) or nothing is open.
 */
export function newSessionDirectory(ctx: GuestContext, catalog: Catalog, path: string): string | undefined {
	const current = ctx.session.id;
	const gone = ctx.services.get("conversation")?.goneDirectory();
	const here =
		(gone ? undefined : catalog()?.state?.sessions.find((s) => s.id === current)?.cwd) ?? ctx.start.local?.cwd;
	return !path ? here : path.startsWith("/") ? path : here ? `${here.replace(/\/$/, "")}/${path}` : undefined;
}

/** `/new [path]` (a new session in the path, relative to the open session's directory) and `/name [name]`. */
export function registerNewAndName(ctx: GuestContext, catalog: Catalog): () => void {
	return registerAll(ctx, [
		{
			id: "app.session.new",
			title: "Start a new session (here, or in [env:]path)",
			category: "Sessions",
			when: "chat && owner",
			requires: { role: "owner", to: "start sessions; you were given this one" },
			slash: {
				name: "new",
				argumentHint: "[[env:]path]",
				tabOnly: true,
				complete: (prefix) => completePlace(ctx, prefix, sessionPlace(ctx, catalog)),
			},
			run: async (path) => {
				const sessions = catalog();
				if (!sessions) throw new Error("No session catalog yet.");
				const here = sessionPlace(ctx, catalog);
				const gone = ctx.services.get("conversation")?.goneDirectory();
				const prefixed = ENV_PREFIX.test(path.trim());
				// A session on another machine: /new alone (or a relative path) starts there too.
				const away = here && here.env !== "local" && !gone && (!path || !/^[/~]/.test(path.trim()));
				const place =
					prefixed || away ? await readPlace(ctx, path || here?.path || "", prefixed ? undefined : here) : null;
				const cwd = place ? place.path : newSessionDirectory(ctx, catalog, path);
				if (!cwd) throw new Error("Usage: /new [env:]<absolute path>");
				const row = await sessions.call("create", place && place.env !== "local" ? { cwd, env: place.env } : { cwd });
				ctx.session.open(row.id);
				ctx.ui.notice("✓ New session started", "success");
			},
		},
		{
			id: "p2.sessions.rename",
			title: "Set the session's name",
			category: "Sessions",
			slash: { name: "name", argumentHint: "<name>" },
			run: async (title) => {
				// pi: without a name, the current one (a p2 session's name is its title, its first message until set).
				if (!title) {
					const current = ctx.session.facts?.title;
					return current
						? ctx.ui.notice(`Session name: ${current}`, "note")
						: ctx.ui.notice("Usage: /name <name>", "warning");
				}
				// Reading the name is anyone's; setting it is the owner's.
				if (!isOwnerRole(ctx.session.role)) throw new CommandRefused("Only the owner can rename this session.");
				const sessions = catalog();
				const id = ctx.session.id;
				if (!sessions || !id) throw new Error("No session is open yet.");
				await sessions.call("rename", { id, title });
				ctx.ui.notice(`Session name set: ${title}`, "note");
			},
		},
	]);
}

/** The session selector, its keys, and /session. */
export function registerSessionCommands(ctx: GuestContext, catalog: Catalog): () => void {
	const { ui } = ctx;
	/** The open selector, when it is the sessions one. */
	const selector = () => {
		const open = ui.selector;
		return open?.id === "sessions" && open.component instanceof SessionSelector ? open.component : undefined;
	};
	const openSelector = () => {
		const sessions = catalog();
		if (!sessions?.state) return ui.notice("The session list is not here yet.");
		const current = ctx.session.id;
		const row = sessions.state.sessions.find((s) => s.id === current);
		const search = ctx.services.get("messageSearch");
		// A session's subagents come from the subagents plugin, when it is there; the list follows their changes.
		const subagents = ctx.services.get("subagentLists");
		const offSubagents = subagents?.onChange(() => ui.requestRender());
		const done = () => {
			offSubagents?.();
			subagents?.forget();
		};
		const selector = new SessionSelector({
			theme: ui.theme,
			rows: () => sessions.state?.sessions ?? [],
			current,
			here: row ? { env: row.env, cwd: row.cwd } : undefined,
			home: ctx.start.local?.home,
			keys: (id) => ui.keys(id),
			now: () => Date.now(),
			...(search ? { search } : {}),
			...(subagents
				? {
						subagents: (session: string) => subagents.of(session),
						openConversation: (session: string, conversation: string) => {
							ui.closeSelector();
							subagents.open(session, conversation);
							done();
						},
					}
				: {}),
			open: (id) => {
				selector.dispose();
				ui.closeSelector();
				done();
				if (id === ctx.session.id) return;
				ctx.session.open(id);
				ui.notice("Resumed session");
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
			close: () => {
				ui.closeSelector();
				done();
			},
			requestRender: () => ui.requestRender(),
		});
		ui.showSelector("sessions", selector);
	};

	return registerAll(ctx, [
		{
			id: "p2.sessions",
			title: "Browse and resume sessions",
			category: "Sessions",
			keys: ["ctrl+r"],
			when: "chat && !overlay",
			requires: BROWSE,
			slash: { name: "sessions" },
			run: openSelector,
		},
		{
			id: "app.session.resume",
			title: "Resume a different session",
			category: "Sessions",
			when: "chat && !overlay",
			requires: BROWSE,
			slash: { name: "resume" },
			run: openSelector,
		},
		{
			id: "p2.sessions.toggleArchived",
			title: "Show archived sessions",
			category: "Sessions",
			keys: ["ctrl+a"],
			when: "overlay:sessions",
			palette: false,
			run: () => selector()?.toggleArchived(),
		},
		{
			id: "p2.sessions.pin",
			title: "Pin or unpin the session",
			category: "Sessions",
			keys: ["alt+p"],
			when: "overlay:sessions",
			palette: false,
			run: () => selector()?.togglePin(),
		},
		{
			id: "p2.session.info",
			title: "Show session info and stats",
			category: "Sessions",
			slash: { name: "session" },
			run: () => {
				const row = catalog()?.state?.sessions.find((s) => s.id === ctx.session.id);
				if (!row) return ui.notice("No session is open yet.");
				const chat = ctx.services.get("conversation")?.ref?.state;
				ui.block("Session Info", sessionInfo(row, chat, ctx.services.get("usage")?.state()));
			},
		},
	]);
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

/** pi's /session, with the scope of each number said. */
export function sessionInfo(row: SessionRow, chat: ChatState | undefined, numbers: UsageState | undefined): string {
	const entries = chat?.entries ?? [];
	const model = chat?.model;
	const context = numbers?.contextTokens ?? null;
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
		...usage("Tokens", "this conversation", numbers?.conversation),
		"",
		...usage("Tokens", "the whole session, every conversation", numbers?.session),
		"",
		"**Context** (this conversation, after the latest answer)",
		"",
		`- ${context === null ? "no answer yet" : `${formatTokens(context)}${window ? ` of ${formatTokens(window)} (${((context / window) * 100).toFixed(1)}%)` : ""}`}`,
		...(numbers?.cacheHitRate != null
			? [`- Cache hit rate of the latest answer: ${(numbers.cacheHitRate * 100).toFixed(1)}%`]
			: []),
	];
	return lines.join("\n");
}
