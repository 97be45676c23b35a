/**
 * pi's warnings about the server's models, for owners (guests never see the catalog): at start, none
 * configured or a configuration the server could not read; later, each new problem when the server reads its
 * models.json again.
 */
import type { GuestUi } from "../../../guest/layout.ts";
import type { ModelsState } from "../contract.ts";
import type { ModelCatalog } from "./catalog.ts";

/** pi's start-up warning, naming where the server's models.json is (an owner's own server, or the remote one's). */
export function noModelsWarning(modelsFile: string): string {
	return `Warning: No models available. Use /login to log into a provider via OAuth or API key, or add a provider to models.json in the server's data directory: ${modelsFile}`;
}

export class ModelWarnings {
	readonly #ui: GuestUi;
	readonly #catalog: ModelCatalog;
	/** The problems already said; undefined until the catalog first arrived. */
	#known: Set<string> | undefined;

	constructor(ui: GuestUi, catalog: ModelCatalog) {
		this.#ui = ui;
		this.#catalog = catalog;
	}

	/** The catalog's problems now: said at a start (not after a reload), and remembered either way. */
	async check(atStart: boolean): Promise<void> {
		try {
			const { state } = await this.#catalog.models();
			this.#known = new Set(state.problems);
			if (!atStart) return;
			for (const problem of state.problems) this.#ui.fail(problem);
			if (state.models.length === 0) this.#ui.notice(noModelsWarning(state.modelsFile), "warning");
		} catch {
			// Not fatal: the footer says "unknown" and a send says why.
		}
	}

	/** The catalog changed: a problem not said before is said now. */
	follow(state: ModelsState | undefined): void {
		if (!state || !this.#known) return;
		for (const problem of state.problems) if (!this.#known.has(problem)) this.#ui.fail(problem);
		this.#known = new Set(state.problems);
	}
}
