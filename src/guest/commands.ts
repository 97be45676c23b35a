/**
 * Commands with a slash form, and the editor's slash autocomplete over them. One registry: what `/` lists is
 * what runs. (Keys, contexts and the palette come with the command issue; this is the part the chat needs.)
 */
import {
	type AutocompleteItem,
	type AutocompleteProvider,
	type AutocompleteSuggestions,
	fuzzyFilter,
} from "@earendil-works/pi-tui";

export interface TuiCommand {
	/** pi's id where the meaning matches, else `<plugin>.<verb>`. */
	readonly id: string;
	/** The slash name, without the slash. */
	readonly name: string;
	readonly description: string;
	readonly argumentHint?: string;
	run(args: string): void | Promise<void>;
}

export class CommandRegistry {
	readonly #commands: TuiCommand[] = [];

	/** A second command with the same slash name is refused: a clash is the plugin's error, not a silent win. */
	register(command: TuiCommand): () => void {
		if (this.#commands.some((c) => c.name === command.name)) {
			throw new Error(`/${command.name} is already a command`);
		}
		this.#commands.push(command);
		return () => {
			const at = this.#commands.indexOf(command);
			if (at >= 0) this.#commands.splice(at, 1);
		};
	}

	get(name: string): TuiCommand | undefined {
		return this.#commands.find((c) => c.name === name);
	}

	all(): readonly TuiCommand[] {
		return this.#commands;
	}
}

/** `/name args` → its parts; anything else (including `/` alone, or `//x`) is not a slash command. */
export function parseSlash(text: string): { name: string; args: string } | undefined {
	const m = /^\/([a-z][a-z0-9:._-]*)(?:\s+([\s\S]*))?$/i.exec(text.trim());
	return m ? { name: m[1]!.toLowerCase(), args: (m[2] ?? "").trim() } : undefined;
}

/** pi's slash autocomplete: fuzzy over the registry, when the cursor is in the first word and it starts with `/`. */
export class SlashAutocomplete implements AutocompleteProvider {
	readonly triggerCharacters = ["/"];
	readonly #registry: CommandRegistry;

	constructor(registry: CommandRegistry) {
		this.#registry = registry;
	}

	async getSuggestions(
		lines: string[],
		cursorLine: number,
		cursorCol: number,
	): Promise<AutocompleteSuggestions | null> {
		if (cursorLine !== 0) return null;
		const before = (lines[0] ?? "").slice(0, cursorCol);
		const m = /^\/(\S*)$/.exec(before);
		if (!m) return null;
		const query = m[1]!;
		const commands = [...this.#registry.all()];
		const matched = query ? fuzzyFilter(commands, query, (c) => c.name) : commands;
		const items: AutocompleteItem[] = matched.map((c) => ({
			value: c.name,
			label: c.name,
			description: c.argumentHint ? `${c.argumentHint} — ${c.description}` : c.description,
		}));
		return { items, prefix: before };
	}

	applyCompletion(
		lines: string[],
		cursorLine: number,
		cursorCol: number,
		item: AutocompleteItem,
		_prefix: string,
	): { lines: string[]; cursorLine: number; cursorCol: number } {
		const line = lines[cursorLine] ?? "";
		const replaced = `/${item.value} `;
		const next = [...lines];
		next[cursorLine] = replaced + line.slice(cursorCol).replace(/^\s+/, "");
		return { lines: next, cursorLine, cursorCol: replaced.length };
	}
}
