/**
 * The registries plugins extend the chat surface through (seed 7.2): tool renderers by name and ordered
 * resolvers, and Markdown transformers. Each registration returns its own removal.
 */
import { generic, TOOL_RENDERERS, type ToolCardData, type ToolRenderer } from "../ui/tools/tool-card.ts";

/** Chooses a renderer for a card, or defers to the next resolver (and finally to the renderer by name). */
export type ToolResolver = (data: ToolCardData, next: () => ToolRenderer) => ToolRenderer;

export class ToolRenderers {
	readonly #byName = new Map<string, ToolRenderer>(Object.entries(TOOL_RENDERERS));
	readonly #resolvers: ToolResolver[] = [];

	/** The renderer for a tool name; a later registration for the same name replaces the earlier one. */
	register(name: string, renderer: ToolRenderer): () => void {
		const before = this.#byName.get(name);
		this.#byName.set(name, renderer);
		return () => {
			if (this.#byName.get(name) !== renderer) return;
			if (before) this.#byName.set(name, before);
			else this.#byName.delete(name);
		};
	}

	/** Resolvers run in the order added, before the renderer by name. */
	addResolver(resolver: ToolResolver): () => void {
		this.#resolvers.push(resolver);
		return () => {
			const at = this.#resolvers.indexOf(resolver);
			if (at >= 0) this.#resolvers.splice(at, 1);
		};
	}

	resolve(data: ToolCardData): ToolRenderer {
		const resolvers = [...this.#resolvers];
		const step = (i: number): ToolRenderer =>
			i < resolvers.length ? resolvers[i]!(data, () => step(i + 1)) : (this.#byName.get(data.name) ?? generic);
		return step(0);
	}
}

/** Rewrites an answer's Markdown before it is parsed, with the width available (pi's markdown transformers). */
export type MarkdownTransformer = (markdown: string, width: number) => string;

export class MarkdownTransformers {
	readonly #transformers: MarkdownTransformer[] = [];

	add(transformer: MarkdownTransformer): () => void {
		this.#transformers.push(transformer);
		return () => {
			const at = this.#transformers.indexOf(transformer);
			if (at >= 0) this.#transformers.splice(at, 1);
		};
	}

	/** All of them in order; a transformer that throws is skipped, so one plugin cannot blank the answers. */
	apply(markdown: string, width: number): string {
		let out = markdown;
		for (const transform of this.#transformers) {
			try {
				out = transform(out, width);
			} catch {
				// The plugin's problem, not the transcript's.
			}
		}
		return out;
	}

	get size(): number {
		return this.#transformers.length;
	}
}
