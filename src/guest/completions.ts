/**
 * The editor's completions, as pi's: the slash commands and their arguments, then the sources plugins add
 * (`@` and Tab, say). A source either claims what is typed (and answers, possibly with nothing) or leaves it
 * to the next; unclaimed text on the first line goes to the slash commands.
 */
import type { AutocompleteItem, AutocompleteProvider, AutocompleteSuggestions } from "@earendil-works/pi-tui";
import type { SlashAutocomplete } from "./commands.ts";

export interface CompletionRequest {
	readonly signal: AbortSignal;
	/** Tab: complete even without a trigger character. */
	readonly force?: boolean;
}

export interface Completion {
	readonly lines: string[];
	readonly cursorLine: number;
	readonly cursorCol: number;
}

export interface CompletionSource {
	/** Characters that open the completion list as they are typed (`@`). */
	readonly triggerCharacters?: readonly string[];
	/** Undefined: not this source's to answer. Otherwise its suggestions, or null for none. */
	getSuggestions(
		lines: string[],
		cursorLine: number,
		cursorCol: number,
		request: CompletionRequest,
	): Promise<AutocompleteSuggestions | null> | undefined;
	/** How one of this source's items goes into the text. */
	applyCompletion(
		lines: string[],
		cursorLine: number,
		cursorCol: number,
		item: AutocompleteItem,
		prefix: string,
	): Completion;
}

export interface CompletionOptions {
	/**
	 * Its items go first, before those of the source that answers (chat mode's `@pi` before the files); it never
	 * claims what is typed from the others.
	 */
	readonly lead?: boolean;
}

/** Plugins' completion sources, asked in the order added (leading ones first). */
export class Completions {
	readonly #sources: CompletionSource[] = [];
	readonly #leading = new Set<CompletionSource>();
	readonly #listeners = new Set<() => void>();

	add(source: CompletionSource, options: CompletionOptions = {}): () => void {
		this.#sources.push(source);
		if (options.lead) this.#leading.add(source);
		this.#changed();
		return () => {
			const at = this.#sources.indexOf(source);
			if (at < 0) return;
			this.#sources.splice(at, 1);
			this.#leading.delete(source);
			this.#changed();
		};
	}

	/** Every source; leading ones are also in `leading()`. */
	all(): readonly CompletionSource[] {
		return [...this.#sources];
	}

	leading(): readonly CompletionSource[] {
		return this.#sources.filter((s) => this.#leading.has(s));
	}

	/** The sources that answer in turn (all but the leading ones). */
	answering(): readonly CompletionSource[] {
		return this.#sources.filter((s) => !this.#leading.has(s));
	}

	/** A source came or went (the editor takes the trigger characters again). */
	onChange(listener: () => void): () => void {
		this.#listeners.add(listener);
		return () => this.#listeners.delete(listener);
	}

	#changed(): void {
		for (const listener of [...this.#listeners]) listener();
	}
}

/** The leading items, then the answer's when it completes the same text. */
function withLead(
	lead: AutocompleteSuggestions | null,
	answer: AutocompleteSuggestions | null,
): AutocompleteSuggestions | null {
	if (!lead) return answer;
	if (!answer || answer.prefix !== lead.prefix) return lead;
	return { prefix: lead.prefix, items: [...lead.items, ...answer.items] };
}

export class EditorCompletion implements AutocompleteProvider {
	readonly triggerCharacters: string[];
	readonly #slash: SlashAutocomplete;
	readonly #sources: Completions;
	/** Which source each item came from: it is applied by that source. */
	readonly #from = new WeakMap<AutocompleteItem, CompletionSource>();

	constructor(slash: SlashAutocomplete, sources: Completions) {
		this.#slash = slash;
		this.#sources = sources;
		this.triggerCharacters = [
			...new Set([...slash.triggerCharacters, ...sources.all().flatMap((s) => s.triggerCharacters ?? [])]),
		];
	}

	async getSuggestions(
		lines: string[],
		cursorLine: number,
		cursorCol: number,
		options: CompletionRequest,
	): Promise<AutocompleteSuggestions | null> {
		const line = lines[cursorLine] ?? "";
		if (cursorLine === 0 && line.startsWith("/") && !options.force) {
			return this.#slash.getSuggestions(lines, cursorLine, cursorCol);
		}
		// A forced Tab in the argument of a Tab-only command asks its own completion (/cd's machines and folders);
		// other commands' arguments get file completion, as in pi.
		if (cursorLine === 0 && line.startsWith("/") && this.#slash.tabOnly(line.slice(0, cursorCol))) {
			return this.#slash.getSuggestions(lines, cursorLine, cursorCol, options);
		}
		const lead = await this.#lead(lines, cursorLine, cursorCol, options);
		// The token typed whole is a leading item (a mention): nothing else is offered for it.
		if (lead?.items.some((item) => item.value === lead.prefix)) return lead;
		for (const source of this.#sources.answering()) {
			const answer = source.getSuggestions(lines, cursorLine, cursorCol, options);
			if (answer === undefined) continue;
			const suggestions = await answer;
			for (const item of suggestions?.items ?? []) this.#from.set(item, source);
			return withLead(lead, suggestions);
		}
		if (lead) return lead;
		return cursorLine === 0 ? this.#slash.getSuggestions(lines, cursorLine, cursorCol) : null;
	}

	/** The leading sources' items for what is typed, in order, or null when none has any. */
	async #lead(
		lines: string[],
		cursorLine: number,
		cursorCol: number,
		options: CompletionRequest,
	): Promise<AutocompleteSuggestions | null> {
		let lead = null as AutocompleteSuggestions | null;
		for (const source of this.#sources.leading()) {
			const suggestions = await source.getSuggestions(lines, cursorLine, cursorCol, options);
			if (!suggestions?.items.length || (lead && lead.prefix !== suggestions.prefix)) continue;
			for (const item of suggestions.items) this.#from.set(item, source);
			lead = { prefix: suggestions.prefix, items: [...(lead?.items ?? []), ...suggestions.items] };
		}
		return lead;
	}

	applyCompletion(
		lines: string[],
		cursorLine: number,
		cursorCol: number,
		item: AutocompleteItem,
		prefix: string,
	): Completion {
		const source = this.#from.get(item);
		if (source) return source.applyCompletion(lines, cursorLine, cursorCol, item, prefix);
		return this.#slash.applyCompletion(lines, cursorLine, cursorCol, item, prefix);
	}

	shouldTriggerFileCompletion(lines: string[], cursorLine: number): boolean {
		// Tab on a slash command's name completes the command, not a path.
		return !(cursorLine === 0 && /^\/\S*$/.test(lines[0] ?? ""));
	}
}
