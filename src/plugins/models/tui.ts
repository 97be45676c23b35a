/**
 * Models and thinking in the UI: /model, /thinking, /scoped-models and their keys, pi's warnings at start
 * about the server's models, and the model lookup the command line's `--model` uses.
 */
import type { GuestPlugin } from "../../guest/plugin.ts";
import type { ObjectRef } from "../../protocol/object-client.ts";
import { isOwnerRole } from "../../protocol/roles.ts";
import { type ModelsState, modelsContract } from "./contract.ts";
import { registerModelCommands, type Scope } from "./tui/model-commands.ts";

export interface Models {
	/** `provider/id`, or an id with `--provider`, or an id that only one provider has. */
	findModel(spec: string, provider: string | undefined): Promise<{ provider: string; id: string } | undefined>;
	/**
	 * How many providers have usable models (the owner's catalog; 0 for a guest, who never sees it): pi's footer
	 * names the provider when there is more than one. The listener hears it now and on every change.
	 */
	onProviderCount(listener: (count: number) => void): () => void;
	/** pi's `--models` scope for this run, resolved by the server (undefined without `--models`, or for a guest). */
	scopeForRun(): Promise<Scope> | undefined;
}

declare module "../../guest/services.ts" {
	interface GuestServices {
		models: Models;
	}
}

/** pi's start-up warning, naming where the server's models.json is (an owner's own server, or the remote one's). */
export function noModelsWarning(modelsFile: string): string {
	return `Warning: No models available. Use /login to log into a provider via OAuth or API key, or add a provider to models.json in the server's data directory: ${modelsFile}`;
}

export const modelsPlugin: GuestPlugin = {
	name: "models",
	register(ctx) {
		/** The owner's model catalog, opened once and kept (the commands and the start warnings share it). */
		let models: ObjectRef<typeof modelsContract> | undefined;
		let providerCount = 0;
		const countListeners = new Set<(count: number) => void>();
		const catalog = () => {
			if (models) return models;
			const ref = ctx.objects.open(modelsContract, {});
			models = ref;
			ref.onChange((state) => {
				const count = new Set((state?.models ?? []).map((m) => m.provider)).size;
				if (count === providerCount) return;
				providerCount = count;
				for (const listener of [...countListeners]) listener(count);
			});
			return ref;
		};

		/**
		 * pi's startup warnings about models, for owners (guests never see the catalog): none configured, or a
		 * configuration the server could not read.
		 */
		const warnAboutModels = async (atStart: boolean) => {
			if (!isOwnerRole(ctx.session.role)) return;
			const ref = catalog();
			try {
				await ref.ready;
				const state = ref.state;
				if (!state) return;
				known = new Set(state.problems);
				if (!atStart) return;
				for (const problem of state.problems) ctx.ui.fail(problem);
				if (state.models.length === 0) {
					ctx.ui.notice(noModelsWarning(state.modelsFile), "warning");
				}
			} catch {
				// Not fatal: the footer says "unknown" and a send says why.
			}
		};
		/** The server's configuration is read again when it changes (models.json): a new problem is said then. */
		let known: Set<string> | undefined;
		const followProblems = (state: ModelsState | undefined) => {
			if (!state || !known) return;
			for (const problem of state.problems) if (!known.has(problem)) ctx.ui.fail(problem);
			known = new Set(state.problems);
		};

		/** pi's `--models`: the scope for this run, resolved by the server once (again after a failure). */
		const patterns = ctx.start.args.models ?? [];
		let runScope: Promise<Scope> | undefined;
		const scopeForRun = (): Promise<Scope> | undefined => {
			if (!patterns.length || !isOwnerRole(ctx.session.role)) return undefined;
			const ref = catalog();
			runScope ??= ref.ready
				.then(() => ref.call("resolveScope", { patterns }))
				.then((resolved) => {
					for (const problem of resolved.problems) ctx.ui.notice(`Warning: ${problem}`, "warning");
					return resolved.scoped;
				})
				.catch((error: unknown) => {
					runScope = undefined;
					throw error;
				});
			return runScope;
		};

		let opened = false;
		const removals = [
			registerModelCommands(ctx, catalog, scopeForRun),
			ctx.services.provide("models", {
				onProviderCount(listener) {
					countListeners.add(listener);
					listener(providerCount);
					return () => countListeners.delete(listener);
				},
				scopeForRun,
				async findModel(spec, provider) {
					const ref = ctx.objects.open(modelsContract, {});
					try {
						await ref.ready;
						const list = ref.state?.models ?? [];
						const slash = spec.indexOf("/");
						const wanted =
							slash > 0 && !provider
								? { provider: spec.slice(0, slash), id: spec.slice(slash + 1) }
								: { provider, id: spec };
						const matches = list.filter(
							(m) => m.id === wanted.id && (!wanted.provider || m.provider === wanted.provider),
						);
						return matches.length === 1 ? { provider: matches[0]!.provider, id: matches[0]!.id } : undefined;
					} finally {
						ref.close();
					}
				},
			}),
			// The first session this start opens: what is wrong with the server's models, said once.
			ctx.session.on("opened", () => {
				if (opened) return;
				opened = true;
				// The owner's catalog: the footer's provider, the start's warnings (not again after a reload), and
				// new problems when the server reads its models.json again.
				if (!isOwnerRole(ctx.session.role)) {
					if (patterns.length) ctx.ui.notice("Only the session's owner chooses the models (--models).", "warning");
					return;
				}
				void warnAboutModels(ctx.start.reason === "start");
				// `--models`: resolved now, so a pattern that matches nothing is said at start, as pi says it.
				void scopeForRun()?.catch(() => {});
				removals.push(catalog().onChange(followProblems));
			}),
		];
		return () => {
			for (const remove of removals.reverse()) remove();
			models?.close();
		};
	},
};
