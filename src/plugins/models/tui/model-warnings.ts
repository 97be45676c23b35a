/**
 * pi's warnings about the server's models, for owners (guests never see the catalog): at start, none
 * configured or a configuration the server could not read, and `--models` patterns that match nothing; later,
 * each new problem when the server reads its models.json again. A guest started with `--models` is told that
 * the owner chooses.
 */
import type { GuestUi } from "../../../guest/layout.ts";
import type { ModelsState } from "../contract.ts";
import type { ModelCatalog } from "./catalog.ts";
import type { RunScope } from "./run-scope.ts";

/** pi's start-up warning, naming where the server's models.json is (an owner's own server, or the remote one's). */
export function noModelsWarning(modelsFile: string): string {
	return `Warning: No models available. Use /login to log into a provider via OAuth or API key, or add a provider to models.json in the server's data directory: ${modelsFile}`;
}

export interface ModelWarningsOptions {
	readonly ui: GuestUi;
	readonly catalog: ModelCatalog;
	readonly runScope: RunScope;
	isOwner(): boolean;
}

export class ModelWarnings {
	readonly #options: ModelWarningsOptions;
	/** The problems already said; undefined until the catalog first arrived. */
	#known: Set<string> | undefined;
	/** A session has opened in this start (the warnings are for the first). */
	#sessionSeen = false;

	constructor(options: ModelWarningsOptions) {
		this.#options = options;
	}

	/**
	 * A session opened; for the first of this start: what is wrong with the server's models (not again after a
	 * reload: `atStart` false), and the `--models` patterns resolved now, so one that matches nothing is said at
	 * start, as pi says it.
	 */
	sessionOpened(atStart: boolean): void {
		if (this.#sessionSeen) return;
		this.#sessionSeen = true;
		const { ui, runScope, isOwner } = this.#options;
		if (!isOwner()) {
			if (runScope.patterns.length) ui.notice("Only the session's owner chooses the models (--models).", "warning");
			return;
		}
		void this.#check(atStart);
		void runScope.resolve()?.catch(() => {});
	}

	/** The catalog's problems now: said at a start (not after a reload), and remembered either way. */
	async #check(atStart: boolean): Promise<void> {
		const { ui } = this.#options;
		try {
			const { state } = await this.#options.catalog.models();
			this.#known = new Set(state.problems);
			if (!atStart) return;
			for (const problem of state.problems) ui.fail(problem);
			if (state.models.length === 0) ui.notice(noModelsWarning(state.modelsFile), "warning");
		} catch {
			// Not fatal: the footer says "unknown" and a send says why.
		}
	}

	/** The catalog changed: a problem not said before is said now. */
	follow(state: ModelsState | undefined): void {
		if (!state || !this.#known) return;
		for (const problem of state.problems) if (!this.#known.has(problem)) this.#options.ui.fail(problem);
		this.#known = new Set(state.problems);
	}
}
