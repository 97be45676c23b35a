/**
 * Models and thinking in the UI: /model, /thinking, /scoped-models and their keys, pi's warnings at start
 * about the server's models, the header's scope line, and the model lookup the command line's `--model` uses.
 */
import type { GuestPlugin } from "../../guest/plugin.ts";
import { isOwnerRole } from "../../protocol/roles.ts";
import { modelsContract } from "./contract.ts";
import { ModelCatalog } from "./tui/catalog.ts";
import { registerModelCommands } from "./tui/model-commands.ts";
import { ModelControl } from "./tui/model-control.ts";
import { ModelWarnings } from "./tui/model-warnings.ts";
import { RunScope, type Scope } from "./tui/run-scope.ts";
import { ScopeLine } from "./tui/scope-line.ts";

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

export const modelsPlugin: GuestPlugin = {
	name: "models",
	register(ctx) {
		const { ui, session } = ctx;
		const isOwner = () => isOwnerRole(session.role);
		const catalog = new ModelCatalog(ctx.objects);
		const runScope = new RunScope({
			patterns: ctx.start.args.models ?? [],
			catalog,
			isOwner,
			warn: (problem) => ui.notice(`Warning: ${problem}`, "warning"),
		});
		const warnings = new ModelWarnings({ ui, catalog, runScope, isOwner });
		const scopeLine = new ScopeLine({
			theme: ui.theme,
			// The run's scope, else the saved one (pi's session scope); a guest has neither.
			scope: () => (isOwner() ? (runScope.known ?? catalog.state?.scoped) : undefined),
			// pi's startup details: not with quietStartup (true or "header"), but with --verbose.
			detailsShown: () => !ctx.preferences.effective().settings.quietStartup || ctx.start.args.verbose,
			keys: (id) => ui.keys(id),
		});
		const render = () => ui.requestRender();
		const removals = [
			registerModelCommands(ctx.commands, new ModelControl(ctx, catalog, runScope)),
			ui.slots.add("header", scopeLine),
			runScope.onChange(render),
			catalog.onChange(render),
			ctx.services.provide("models", {
				onProviderCount: (listener) => catalog.onProviderCount(listener),
				scopeForRun: () => runScope.resolve(),
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
			session.on("opened", () => warnings.sessionOpened(ctx.start.reason === "start")),
			// New problems when the server reads its models.json again (the catalog is an owner's, once opened).
			catalog.onChange((state) => warnings.follow(state)),
		];
		return () => {
			for (const remove of removals.reverse()) remove();
			catalog.close();
		};
	},
};
