/**
 * The editor's completions, as pi's: slash commands and their arguments, `@` finding a file of the session's
 * directory by a fuzzy query, and Tab completing the path being typed. Files come from the server.
 */
import type { AutocompleteItem, AutocompleteProvider, AutocompleteSuggestions } from "@earendil-works/pi-tui";
import type { FileSuggestion } from "../plugins/files/contract.ts";
import type { SlashAutocomplete } from "./commands.ts";

/** The server's file suggestions for what is typed; undefined while this person cannot ask (a view guest). */
export type FileSource = (prefix: string, mode: "path" | "fuzzy") => Promise<FileSuggestion[]> | undefined;

/** The token the cursor ends: text since the last blank, with an `@` and an opening quote kept. */
function tokenBefore(line: string, col: number): string {
	return /(\S*)$/.exec(line.slice(0, col))?.[1] ?? "";
}

export class EditorCompletion implements AutocompleteProvider {
	readonly triggerCharacters = ["/", "@"];
	readonly #slash: SlashAutocomplete;
	readonly #files: FileSource;
	/** Items that name files: applied as paths (a space after a file, none after a folder). */
	readonly #fileItems = new WeakSet<AutocompleteItem>();

	constructor(slash: SlashAutocomplete, files: FileSource) {
		this.#slash = slash;
		this.#files = files;
	}

	async getSuggestions(
		lines: string[],
		cursorLine: number,
		cursorCol: number,
		options: { signal: AbortSignal; force?: boolean },
	): Promise<AutocompleteSuggestions | null> {
		const line = lines[cursorLine] ?? "";
		if (cursorLine === 0 && line.startsWith("/") && !options.force) {
			return this.#slash.getSuggestions(lines, cursorLine, cursorCol);
		}
		const token = tokenBefore(line, cursorCol);
		if (token.startsWith("@")) {
			const query = token.slice(1).replace(/^"/, "");
			return this.#suggest(query, "fuzzy", token, (path) => `@${/\s/.test(path) ? `"${path}"` : path}`, options.signal);
		}
		if (options.force) return this.#suggest(token, "path", token, (path) => path, options.signal);
		return cursorLine === 0 ? this.#slash.getSuggestions(lines, cursorLine, cursorCol) : null;
	}

	async #suggest(
		query: string,
		mode: "path" | "fuzzy",
		prefix: string,
		value: (path: string) => string,
		signal: AbortSignal,
	): Promise<AutocompleteSuggestions | null> {
		const found = await this.#files(query, mode)?.catch(() => []);
		if (!found?.length || signal.aborted) return null;
		const items = found.map((f) => {
			const name = f.dir ? `${f.path.replace(/\/$/, "").split("/").at(-1)}/` : (f.path.split("/").at(-1) ?? f.path);
			const item: AutocompleteItem = { value: value(f.path), label: mode === "path" ? name : f.path };
			this.#fileItems.add(item);
			return item;
		});
		return { items, prefix };
	}

	applyCompletion(
		lines: string[],
		cursorLine: number,
		cursorCol: number,
		item: AutocompleteItem,
		prefix: string,
	): { lines: string[]; cursorLine: number; cursorCol: number } {
		if (!this.#fileItems.has(item)) return this.#slash.applyCompletion(lines, cursorLine, cursorCol, item, prefix);
		const line = lines[cursorLine] ?? "";
		const start = cursorCol - prefix.length;
		const inserted = item.value.endsWith("/") || item.value.endsWith('/"') ? item.value : `${item.value} `;
		const next = [...lines];
		next[cursorLine] = line.slice(0, start) + inserted + line.slice(cursorCol);
		return { lines: next, cursorLine, cursorCol: start + inserted.length };
	}

	shouldTriggerFileCompletion(lines: string[], cursorLine: number): boolean {
		// Tab on a slash command's name completes the command, not a path.
		return !(cursorLine === 0 && /^\/\S*$/.test(lines[0] ?? ""));
	}
}
