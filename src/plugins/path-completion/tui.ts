/**
 * The session directory's files in the editor, as pi's: `@` finds a file by a fuzzy query, Tab completes the
 * path being typed. The files come from the server's path-completion object of the open session.
 */
import type { AutocompleteItem, AutocompleteSuggestions } from "@earendil-works/pi-tui";
import type { Completion, CompletionRequest, CompletionSource } from "../../guest/completions.ts";
import type { GuestPlugin } from "../../guest/plugin.ts";
import { isParticipantRole } from "../../protocol/roles.ts";
import { type FileSuggestion, pathCompletionContract } from "./contract.ts";

/**
 * The server's file suggestions for what is typed, and whether the list is partial (the walk stopped at its
 * bound, or more matched than came back); undefined while this person cannot ask (a view guest).
 */
export type FileSource = (
	prefix: string,
	mode: "path" | "fuzzy",
) => Promise<{ items: FileSuggestion[]; truncated: boolean }> | undefined;

/** The list's last line when it is partial: chosen, it leaves the text as typed. */
export const PARTIAL_LABEL = "… partial list: more files than were searched or shown";

/** The token the cursor ends: text since the last blank, with an `@` and an opening quote kept. */
function tokenBefore(line: string, col: number): string {
	return /(\S*)$/.exec(line.slice(0, col))?.[1] ?? "";
}

export class FileCompletion implements CompletionSource {
	readonly triggerCharacters = ["@"];
	readonly #files: FileSource;
	/** The "partial list" lines given out: choosing one changes nothing. */
	readonly #partial = new WeakSet<AutocompleteItem>();

	constructor(files: FileSource) {
		this.#files = files;
	}

	getSuggestions(
		lines: string[],
		cursorLine: number,
		cursorCol: number,
		request: CompletionRequest,
	): Promise<AutocompleteSuggestions | null> | undefined {
		const token = tokenBefore(lines[cursorLine] ?? "", cursorCol);
		if (token.startsWith("@")) {
			const query = token.slice(1).replace(/^"/, "");
			return this.#suggest(query, "fuzzy", token, (path) => `@${/\s/.test(path) ? `"${path}"` : path}`, request.signal);
		}
		if (request.force) return this.#suggest(token, "path", token, (path) => path, request.signal);
		return undefined;
	}

	async #suggest(
		query: string,
		mode: "path" | "fuzzy",
		prefix: string,
		value: (path: string) => string,
		signal: AbortSignal,
	): Promise<AutocompleteSuggestions | null> {
		const found = await this.#files(query, mode)?.catch(() => undefined);
		if (!found?.items.length || signal.aborted) return null;
		const items = found.items.map((f): AutocompleteItem => {
			const name = f.dir ? `${f.path.replace(/\/$/, "").split("/").at(-1)}/` : (f.path.split("/").at(-1) ?? f.path);
			return { value: value(f.path), label: mode === "path" ? name : f.path };
		});
		if (found.truncated) {
			// No value: pi-tui's editor selects the item whose value is (or starts with) what is typed.
			const partial: AutocompleteItem = { value: "", label: PARTIAL_LABEL };
			this.#partial.add(partial);
			items.push(partial);
		}
		return { items, prefix };
	}

	/** A file is followed by a space, a folder is not (the next Tab goes into it). */
	applyCompletion(
		lines: string[],
		cursorLine: number,
		cursorCol: number,
		item: AutocompleteItem,
		prefix: string,
	): Completion {
		if (this.#partial.has(item)) return { lines, cursorLine, cursorCol };
		const line = lines[cursorLine] ?? "";
		const start = cursorCol - prefix.length;
		const inserted = item.value.endsWith("/") || item.value.endsWith('/"') ? item.value : `${item.value} `;
		const next = [...lines];
		next[cursorLine] = line.slice(0, start) + inserted + line.slice(cursorCol);
		return { lines: next, cursorLine, cursorCol: start + inserted.length };
	}
}

export const pathCompletionPlugin: GuestPlugin = {
	name: "path-completion",
	register(ctx) {
		/** The open session's path-completion object, opened on the first completion there (guests who take part only). */
		const files = ctx.objects.follow(
			pathCompletionContract,
			(session) =>
				session.id && (!session.role || isParticipantRole(session.role)) ? { session: session.id } : undefined,
			{ lazy: true },
		);
		const source: FileSource = (prefix, mode) => {
			const ref = files.use();
			return ref?.ready.then(() => ref.call("complete", { prefix, mode }));
		};
		const remove = ctx.registries.completions.add(new FileCompletion(source));
		return () => {
			remove();
			files.close();
		};
	},
};
