/**
 * pi's `--models` for this run: the patterns, the scope the server resolved them to (once; again after a
 * failure), and the scope /scoped-models chose since, which then is the run's (pi's session scope). Ctrl+P
 * cycles it instead of the saved one; the header's scope line names it.
 */
import type { ScopedModel } from "../contract.ts";
import type { ModelCatalog } from "./catalog.ts";

export type Scope = readonly ScopedModel[];

export interface RunScopeOptions {
	/** The `--models` patterns (empty without the flag). */
	readonly patterns: readonly string[];
	readonly catalog: ModelCatalog;
	/** Only an owner has a catalog to resolve patterns in. */
	isOwner(): boolean;
	/** A pattern matched nothing, or several providers' models (pi's warning). */
	warn(problem: string): void;
}

export class RunScope {
	readonly #options: RunScopeOptions;
	#resolving: Promise<Scope> | undefined;
	#known: Scope | undefined;
	readonly #listeners = new Set<() => void>();

	constructor(options: RunScopeOptions) {
		this.#options = options;
	}

	get patterns(): readonly string[] {
		return this.#options.patterns;
	}

	/** The run's scope as far as it is known now: undefined without one, or before the server resolved it. */
	get known(): Scope | undefined {
		return this.#known;
	}

	/** The run's scope, resolved by the server; undefined when this run has none (or for a guest). */
	resolve(): Promise<Scope> | undefined {
		if (!this.#options.isOwner()) return undefined;
		if (this.#resolving) return this.#resolving;
		const { patterns, catalog, warn } = this.#options;
		if (!patterns.length) return undefined;
		const ref = catalog.ref;
		const resolving = ref.ready
			.then(() => ref.call("resolveScope", { patterns: [...patterns] }))
			.then((resolved) => {
				for (const problem of resolved.problems) warn(problem);
				if (this.#resolving === resolving) this.#set(resolved.scoped);
				return resolved.scoped;
			})
			.catch((error: unknown) => {
				if (this.#resolving === resolving) this.#resolving = undefined;
				throw error;
			});
		this.#resolving = resolving;
		return resolving;
	}

	/** /scoped-models chose a scope: it is this run's from now on (empty: every model). */
	choose(scope: Scope): void {
		this.#resolving = Promise.resolve(scope);
		this.#set(scope);
	}

	/** The run's scope became known or changed. */
	onChange(listener: () => void): () => void {
		this.#listeners.add(listener);
		return () => this.#listeners.delete(listener);
	}

	#set(scope: Scope): void {
		this.#known = scope;
		for (const listener of [...this.#listeners]) listener();
	}
}
