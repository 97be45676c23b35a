/**
 * Models and thinking, as pi has them: /model (and Ctrl+L) with its selector or a `provider/id` argument,
 * Ctrl+P / Shift+Ctrl+P through the scoped models (or all), /thinking with its selector or a level,
 * Shift+Tab through the model's levels, /scoped-models. The catalog is the server's and the owner's; a guest
 * is told the session's model and that its owner chooses.
 */
import type { TuiCommand } from "../../../guest/commands.ts";
import { failureText } from "../../../guest/layout.ts";
import type { GuestContext } from "../../../guest/plugin.ts";
import type { ObjectRef } from "../../../protocol/object-client.ts";
import { isOwnerRole } from "../../../protocol/roles.ts";
import { THINKING_LEVELS, type ThinkingLevel } from "../../../protocol/thinking-levels.ts";
import type { ModelInfo, modelsContract } from "../contract.ts";
import { ModelSelector } from "./model-selector.ts";
import { ScopedModelsSelector } from "./scoped-models-selector.ts";
import { LEVEL_DESCRIPTIONS, ThinkingSelector } from "./thinking-selector.ts";

const ALL_LEVELS: readonly ThinkingLevel[] = THINKING_LEVELS;

/** A scope as the catalog resolves it. */
export type Scope = readonly { provider: string; id: string; thinkingLevel: ThinkingLevel | null }[];

/**
 * `catalog`: the owner's catalog (opened on first use, kept open); `runScope`: the scope `--models` gave this
 * run, which Ctrl+P cycles instead of the saved one (undefined without `--models`).
 */
export function registerModelCommands(
	guest: GuestContext,
	catalog: () => ObjectRef<typeof modelsContract>,
	runScope: () => Promise<Scope> | undefined = () => undefined,
): () => void {
	const { ui } = guest;
	/** What these commands use of the guest: the open conversation (the chat's), the role, the screen. */
	const ctx = {
		theme: ui.theme,
		role: () => guest.session.role,
		chat: () => guest.services.get("conversation")?.ref,
		catalog,
		keys: (id: string) => ui.keys(id),
		showSelector: ui.showSelector.bind(ui),
		closeSelector: () => ui.closeSelector(),
		notice: ui.notice.bind(ui),
	};
	const commands: TuiCommand[] = [];
	const models = async (): Promise<{
		list: ModelInfo[];
		state: NonNullable<ObjectRef<typeof modelsContract>["state"]>;
	}> => {
		const catalog = ctx.catalog();
		await catalog.ready;
		const state = catalog.state;
		if (!state) throw new Error("The server's model catalog is not available.");
		return { list: state.models, state };
	};

	/** A guest learns what the session uses, never the catalog. */
	const guestLine = () => {
		const model = ctx.chat()?.state?.model;
		const level = ctx.chat()?.state?.thinkingLevel;
		ctx.notice(
			model
				? `Model: ${model.provider}/${model.id}${model.reasoning ? ` (thinking: ${level})` : ""}. The session's owner chooses the model.`
				: "The session's owner chooses the model.",
		);
	};

	/** Uses a model: for the open conversation, or as the default for new sessions when none is open. */
	const useModel = async (model: ModelInfo, level?: ThinkingLevel | null) => {
		const chat = ctx.chat();
		if (!chat) {
			await ctx.catalog().call("setDefault", { provider: model.provider, id: model.id });
			return ctx.notice(`Default model: ${model.provider}/${model.id}`);
		}
		await chat.ready;
		const state = await chat.call("configure", {
			model: { provider: model.provider, id: model.id },
			...(level ? { thinkingLevel: level } : {}),
		});
		return state;
	};

	const openModelSelector = async (search?: string) => {
		const { list, state } = await models();
		const current = ctx.chat()?.state?.model ?? null;
		const selector = new ModelSelector({
			theme: ctx.theme,
			models: list,
			current,
			default: state.default,
			scoped: state.scoped,
			...(search ? { initialSearch: search } : {}),
			keys: ctx.keys,
			onCancel: () => ctx.closeSelector(),
			onSelect: (model) => {
				ctx.closeSelector();
				void run(async () => {
					await useModel(model);
					if (ctx.chat()) ctx.notice(`Model: ${model.id}`);
				});
			},
			onSetDefault: (model) => {
				ctx.closeSelector();
				void run(async () => {
					await ctx.catalog().call("setDefault", { provider: model.provider, id: model.id });
					if (ctx.chat()) await useModel(model);
					ctx.notice(`Default model: ${model.provider}/${model.id}`);
				});
			},
		});
		ctx.showSelector("models", selector);
	};

	const run = async (work: () => Promise<unknown>) => {
		try {
			await work();
		} catch (error) {
			ctx.notice(failureText(error), "error");
		}
	};

	/** `provider/id`, or an id only one provider has; else the selector opens on the text (pi). */
	const findModel = (list: ModelInfo[], spec: string): ModelInfo | undefined => {
		const lower = spec.toLowerCase();
		const exact = list.filter((m) => `${m.provider}/${m.id}`.toLowerCase() === lower);
		if (exact.length === 1) return exact[0];
		const byId = list.filter((m) => m.id.toLowerCase() === lower);
		return byId.length === 1 ? byId[0] : undefined;
	};

	commands.push({
		id: "app.model.select",
		title: "Select model (opens selector UI)",
		category: "Models",
		when: "chat && owner",
		slash: {
			name: "model",
			argumentHint: "<provider/model>",
			complete: async (prefix) => {
				if (!isOwnerRole(ctx.role())) return null;
				const { list } = await models();
				const lower = prefix.toLowerCase();
				return list
					.map((m) => `${m.provider}/${m.id}`)
					.filter((ref) => ref.toLowerCase().includes(lower))
					.slice(0, 50)
					.map((ref) => ({ value: ref, label: ref }));
			},
		},
		run: (args) =>
			run(async () => {
				if (!isOwnerRole(ctx.role())) return guestLine();
				if (!args) return openModelSelector();
				const { list } = await models();
				const model = findModel(list, args);
				if (!model) return openModelSelector(args);
				await useModel(model);
				if (ctx.chat()) ctx.notice(`Model: ${model.id}`);
			}),
	});

	const cycle = (direction: 1 | -1) =>
		run(async () => {
			if (!isOwnerRole(ctx.role())) return guestLine();
			const { list, state } = await models();
			const scoped = ((await runScope()) ?? state.scoped)
				.map((s) => ({ model: list.find((m) => m.provider === s.provider && m.id === s.id), level: s.thinkingLevel }))
				.filter((s): s is { model: ModelInfo; level: ThinkingLevel | null } => Boolean(s.model));
			const ring = scoped.length ? scoped : list.map((model) => ({ model, level: null }));
			if (ring.length < 2) return ctx.notice(scoped.length ? "Only one model in scope" : "Only one model available");
			const current = ctx.chat()?.state?.model;
			const at = ring.findIndex((r) => r.model.provider === current?.provider && r.model.id === current?.id);
			const next = ring[(at + direction + ring.length) % ring.length]!;
			const result = await useModel(next.model, next.level);
			const level = next.model.reasoning ? (next.level ?? ctx.chat()?.state?.thinkingLevel ?? "off") : "off";
			if (result !== undefined) ctx.notice(`Switched to ${next.model.name} (thinking: ${level})`);
		});
	commands.push({
		id: "app.model.cycleForward",
		title: "Cycle to next model",
		category: "Models",
		when: "chat && owner",
		run: () => cycle(1),
	});
	commands.push({
		id: "app.model.cycleBackward",
		title: "Cycle to previous model",
		category: "Models",
		when: "chat && owner",
		run: () => cycle(-1),
	});

	const levelsOf = () => {
		const model = ctx.chat()?.state?.model;
		if (!model?.reasoning) return undefined;
		return model.thinkingLevels.length ? model.thinkingLevels : ALL_LEVELS;
	};

	const setLevel = async (level: ThinkingLevel) => {
		const chat = ctx.chat();
		if (!chat) {
			const { state } = await models();
			if (!state.default) throw new Error("No default model to set a thinking level for.");
			await ctx.catalog().call("setDefault", { ...state.default, thinkingLevel: level });
			return ctx.notice(`Default thinking level: ${level}`);
		}
		await chat.call("configure", { thinkingLevel: level });
		ctx.notice(`Thinking level: ${level}`);
	};

	commands.push({
		id: "app.thinking.cycle",
		title: "Cycle thinking level",
		category: "Other",
		when: "chat",
		run: () =>
			run(async () => {
				const levels = levelsOf();
				if (!levels) return ctx.notice("Current model does not support thinking");
				if (!isOwnerRole(ctx.role())) return guestLine();
				const current = ctx.chat()?.state?.thinkingLevel as ThinkingLevel;
				await setLevel(levels[(levels.indexOf(current) + 1) % levels.length]!);
			}),
	});

	commands.push({
		id: "p2.thinking.select",
		title: "Set thinking level",
		category: "Models",
		slash: {
			name: "thinking",
			argumentHint: "<level>",
			complete: (prefix) =>
				(levelsOf() ?? [])
					.filter((l) => l.startsWith(prefix.toLowerCase()))
					.map((l) => ({ value: l, label: l, description: LEVEL_DESCRIPTIONS[l] })),
		},
		run: (args) =>
			run(async () => {
				if (!isOwnerRole(ctx.role())) return guestLine();
				const levels = levelsOf();
				if (!levels) return ctx.notice("Current model does not support thinking");
				if (args) {
					const level = args.toLowerCase() as ThinkingLevel;
					if (!levels.includes(level)) {
						return ctx.notice(
							`Error: Unknown thinking level "${args}". Available levels: ${levels.join(", ")}`,
							"error",
						);
					}
					return setLevel(level);
				}
				const { state } = await models();
				const current = (ctx.chat()?.state?.thinkingLevel ?? "off") as ThinkingLevel;
				ctx.showSelector(
					"thinking",
					new ThinkingSelector({
						theme: ctx.theme,
						levels,
						current,
						default: state.defaultThinkingLevel,
						keys: ctx.keys,
						onCancel: () => ctx.closeSelector(),
						onSelect: (level) => {
							ctx.closeSelector();
							void run(() => setLevel(level));
						},
						onSetDefault: (level) => {
							ctx.closeSelector();
							void run(async () => {
								const defaultModel = state.default;
								if (defaultModel) await ctx.catalog().call("setDefault", { ...defaultModel, thinkingLevel: level });
								await ctx.chat()?.call("configure", { thinkingLevel: level });
								ctx.notice(`Default thinking level: ${level}`);
							});
						},
					}),
				);
			}),
	});

	commands.push({
		id: "p2.models.scope",
		title: "Enable/disable models for Ctrl+P cycling",
		category: "Models",
		slash: { name: "scoped-models" },
		run: () =>
			run(async () => {
				if (!isOwnerRole(ctx.role())) return guestLine();
				const { list, state } = await models();
				ctx.showSelector(
					"scoped-models",
					new ScopedModelsSelector({
						theme: ctx.theme,
						models: list,
						enabled: state.scoped,
						keys: ctx.keys,
						onCancel: () => ctx.closeSelector(),
						onSave: (enabled) => {
							ctx.closeSelector();
							void run(async () => {
								// Every model enabled is pi's "no scope".
								const patterns = enabled.length === list.length ? [] : enabled.map((m) => `${m.provider}/${m.id}`);
								await ctx.catalog().call("setScope", { patterns });
								ctx.notice(
									patterns.length
										? `Scoped models saved: ${patterns.length}`
										: "Scoped models cleared: all models cycle",
								);
							});
						},
					}),
				);
			}),
	});
	const removals = commands.map((command) => guest.commands.register(command));
	return () => {
		for (const remove of removals) remove();
	};
}
