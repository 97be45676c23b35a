import type { StartData } from "../../../protocol/channel.ts";
import type { ObjectRef } from "../../../protocol/object-client.ts";
import { isOwnerRole, type Role } from "../../../protocol/roles.ts";
import type { ThinkingLevel } from "../../../protocol/thinking-levels.ts";
import type { StatusLineData } from "../../../ui/transcript/status-line.ts";
import type { sessionsContract } from "../contract.ts";
import type { ConversationService } from "./peers.ts";

export interface StartFlagsContext {
	readonly role: Role;
	readonly session: string;
	readonly sessions: ObjectRef<typeof sessionsContract>;
	readonly chat: NonNullable<ConversationService["ref"]>;
	/** The models plugin's lookup: `provider/id`, or an id with `--provider`, or an id only one provider has. */
	findModel(spec: string, provider: string | undefined): Promise<{ provider: string; id: string } | undefined>;
	notice(text: string, tone?: StatusLineData["tone"]): void;
	/** The session was made by this start (not continued, resumed or chosen). */
	readonly created?: boolean;
	/** The models plugin's `--models` scope for this run. */
	scopeForRun?(): Promise<readonly { provider: string; id: string; thinkingLevel: ThinkingLevel | null }[]> | undefined;
}

/**
 * pi's `--models` at start: a new session without `--model` keeps its model when the scope has it, else takes
 * the scope's first (with the level its pattern pinned, unless `--thinking` says one).
 */
async function applyStartScope(args: StartData["args"], ctx: StartFlagsContext): Promise<void> {
	if (args.model || !args.models?.length || !ctx.created || !isOwnerRole(ctx.role)) return;
	const scope = await ctx.scopeForRun?.()?.catch(() => undefined);
	const first = scope?.[0];
	if (!first) return;
	await ctx.chat.ready;
	const current = ctx.chat.state?.model;
	const kept = scope.find((s) => s.provider === current?.provider && s.id === current?.id);
	const chosen = kept ?? first;
	const level = args.thinking ? undefined : (chosen.thinkingLevel ?? undefined);
	if (kept && !level) return;
	const state = await ctx.chat.call("configure", {
		model: { provider: chosen.provider, id: chosen.id },
		...(level ? { thinkingLevel: level } : {}),
	});
	if (!kept) ctx.notice(`Model: ${state?.id ?? chosen.id}`);
}

/** `--name`, `--model`, `--provider` and `--thinking`, as pi applies them: to the session that opens (owner). */
export async function applyStartFlags(args: StartData["args"], ctx: StartFlagsContext): Promise<void> {
	await applyStartScope(args, ctx);
	if (!args.name && !args.model && !args.thinking) return;
	if (!isOwnerRole(ctx.role)) {
		return ctx.notice("Only the session's owner can set its name, model or thinking level.", "warning");
	}
	if (args.name) {
		await ctx.sessions.call("rename", { id: ctx.session, title: args.name });
		ctx.notice(`Session name set: ${args.name}`);
	}
	if (!args.model && !args.thinking) return;
	let model: { provider: string; id: string } | undefined;
	if (args.model) {
		model = await ctx.findModel(args.model, args.provider);
		if (!model) return ctx.notice(`Error: no model ${args.model} on this server`, "error");
	}
	await ctx.chat.ready;
	const state = await ctx.chat.call("configure", {
		...(model ? { model } : {}),
		...(args.thinking ? { thinkingLevel: args.thinking } : {}),
	});
	if (model) ctx.notice(`Model: ${state?.id ?? model.id}`);
	if (args.thinking) ctx.notice(`Thinking level: ${args.thinking}`);
}
