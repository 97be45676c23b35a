/**
 * One registry for what a person can do: each command's keys, context, slash form, palette entry and help
 * line come from here. Keys are resolved through the keymap (`keymap.ts`); what runs on a key is decided by
 * `dispatch`, by context specificity.
 */
import {
	type AutocompleteItem,
	type AutocompleteProvider,
	type AutocompleteSuggestions,
	fuzzyFilter,
} from "@earendil-works/pi-tui";
import type { Role } from "../protocol/roles.ts";
import { meets, type Requirement, refusal } from "./access.ts";
import { parseWhen, type When, WhenError } from "./when.ts";

/** pi 1.6.0's built-in slash commands, in the order its list shows them. */
const PI_SLASH_ORDER = [
	"settings",
	"model",
	"tree",
	"thinking",
	"scoped-models",
	"export",
	"import",
	"share",
	"bug",
	"copy",
	"name",
	"session",
	"changelog",
	"hotkeys",
	"fork",
	"clone",
	"trust",
	"login",
	"logout",
	"new",
	"compact",
	"resume",
	"reload",
	"quit",
];

export interface SlashForm {
	/** The name, without the slash. */
	readonly name: string;
	readonly argumentHint?: string;
	/** Suggestions for the argument being typed; null for none. */
	complete?(prefix: string): AutocompleteItem[] | null | Promise<AutocompleteItem[] | null>;
	/**
	 * Argument completion on Tab only, never while typing: Enter then submits a typed path instead of taking a
	 * listed subfolder (/cd, /new).
	 */
	readonly tabOnly?: boolean;
}

export interface TuiCommand {
	/** pi's id where the meaning matches (its keys are then pi's defaults), else `<plugin>.<verb>`. */
	readonly id: string;
	readonly title: string;
	readonly category?: string;
	/** Default keys, for ids pi does not have. */
	readonly keys?: readonly string[];
	/** Where the keys apply (`chat && editorEmpty`); a slash form is available wherever the editor is. */
	readonly when?: string;
	/**
	 * Who may use it (keys, slash form and palette alike): the registry refuses anyone else with one worded
	 * line, and the palette and the slash list do not offer it to them. Without it, anyone may.
	 */
	readonly requires?: Requirement;
	readonly slash?: SlashForm;
	/** Hidden from the palette (keys and slash still work). */
	readonly palette?: false;
	run(args: string): void | Promise<void>;
}

/**
 * What a plugin lists after the commands and turns into the message sent (pi's prompt templates and
 * `skill:<name>`): `/name args` is not run but expanded, and the expanded text is what is sent.
 */
export interface SlashEntry {
	/** As typed after the slash (case and all). */
	readonly name: string;
	readonly description?: string;
	readonly argumentHint?: string;
	/** Not in the slash list, though still expanded when typed (pi's `enableSkillCommands: false`). */
	readonly unlisted?: boolean;
}

export interface SlashExpander {
	/** Its entries, in the order they are listed. */
	entries(): readonly SlashEntry[];
	/** The message for `/name args` as typed (one of its entries' names). */
	expand(text: string): Promise<string>;
}

export interface RegisteredCommand {
	readonly command: TuiCommand;
	readonly when: When;
	/** Registration order: the tie-breaker after specificity and user bindings. */
	readonly order: number;
}

/** What the registry found wrong with what was registered, for /hotkeys. */
export interface CommandProblem {
	readonly id: string;
	readonly text: string;
}

export class CommandRegistry {
	readonly #commands = new Map<string, RegisteredCommand>();
	readonly #problems = new Map<string, CommandProblem>();
	readonly #listeners = new Set<() => void>();
	readonly #expanders: SlashExpander[] = [];
	readonly #role: () => Role | undefined;
	#order = 0;

	/** `role`: who the person is now (undefined until the server says), for the commands' `requires`. */
	constructor(role: () => Role | undefined = () => undefined) {
		this.#role = role;
	}

	/** Whether the person may use the command now (its `requires` against their role). */
	allows(command: TuiCommand): boolean {
		return meets(command.requires, this.#role());
	}

	/**
	 * Runs a command as a key, a slash form or the palette asked (the one way they all run one): a command the
	 * person may not use is refused with a `CommandRefused` saying who may, and does not run.
	 */
	async invoke(command: TuiCommand, args = ""): Promise<void> {
		if (command.requires && !this.allows(command)) throw refusal(command.requires, command.title);
		await command.run(args);
	}

	/** A second command with the same id is refused: a clash of ids is the plugin's error, not a silent win. */
	register(command: TuiCommand): () => void {
		if (this.#commands.has(command.id)) throw new Error(`${command.id} is already a command`);
		let when: When;
		try {
			when = parseWhen(command.when);
		} catch (error) {
			if (!(error instanceof WhenError)) throw error;
			// Its keys never fire; the slash form and the palette still work.
			when = { source: command.when ?? "", specificity: 0, required: new Set(), names: new Set(), test: () => false };
			this.#problems.set(command.id, { id: command.id, text: `${command.id}: ${error.message}` });
		}
		const entry = { command, when, order: this.#order++ };
		this.#commands.set(command.id, entry);
		this.#changed();
		return () => {
			if (this.#commands.get(command.id) !== entry) return;
			this.#commands.delete(command.id);
			this.#problems.delete(command.id);
			this.#changed();
		};
	}

	get(id: string): TuiCommand | undefined {
		return this.#commands.get(id)?.command;
	}

	all(): readonly RegisteredCommand[] {
		return [...this.#commands.values()];
	}

	/**
	 * The commands in the order a person sees them (slash list, palette, /hotkeys): pi's built-in commands in
	 * pi's own list order, then every other command in the order it was registered.
	 */
	listed(): readonly RegisteredCommand[] {
		const rank = (entry: RegisteredCommand) => {
			const at = PI_SLASH_ORDER.indexOf(entry.command.slash?.name ?? "");
			return at < 0 ? PI_SLASH_ORDER.length : at;
		};
		return [...this.all()].sort((a, b) => rank(a) - rank(b) || a.order - b.order);
	}

	/** The slash index: the first command to claim a name keeps it; later ones lose only their slash form. */
	slashIndex(): { byName: Map<string, TuiCommand>; problems: CommandProblem[] } {
		const byName = new Map<string, TuiCommand>();
		const problems: CommandProblem[] = [];
		for (const { command } of this.all()) {
			const name = command.slash?.name;
			if (name === undefined) continue;
			if (!/^[a-z][a-z0-9:._-]{0,63}$/.test(name)) {
				problems.push({ id: command.id, text: `${command.id}: "/${name}" is not a valid slash name` });
				continue;
			}
			const owner = byName.get(name);
			if (owner) {
				problems.push({ id: command.id, text: `/${name} belongs to ${owner.id}; ${command.id} has no slash form` });
				continue;
			}
			byName.set(name, command);
		}
		return { byName, problems };
	}

	slash(name: string): TuiCommand | undefined {
		return this.slashIndex().byName.get(name);
	}

	/** A plugin's slash entries, listed after every command. */
	addExpander(expander: SlashExpander): () => void {
		this.#expanders.push(expander);
		this.#changed();
		return () => {
			const at = this.#expanders.indexOf(expander);
			if (at < 0) return;
			this.#expanders.splice(at, 1);
			this.#changed();
		};
	}

	/** The plugins' slash entries: an entry with a command's name, or one another plugin listed first, is left out. */
	slashEntries(): { entry: SlashEntry; expander: SlashExpander }[] {
		const taken = new Set(this.slashIndex().byName.keys());
		const out: { entry: SlashEntry; expander: SlashExpander }[] = [];
		for (const expander of this.#expanders) {
			for (const entry of expander.entries()) {
				if (taken.has(entry.name)) continue;
				taken.add(entry.name);
				out.push({ entry, expander });
			}
		}
		return out;
	}

	/** The expander of what is typed (`/name args` with one of the plugins' entries' names), if any. */
	expanderFor(text: string): SlashExpander | undefined {
		const name = /^\/(\S+)/.exec(text)?.[1];
		if (name === undefined || this.slash(name.toLowerCase())) return undefined;
		return this.slashEntries().find(({ entry }) => entry.name === name)?.expander;
	}

	problems(): CommandProblem[] {
		return [...this.#problems.values(), ...this.slashIndex().problems];
	}

	onChange(listener: () => void): () => void {
		this.#listeners.add(listener);
		return () => this.#listeners.delete(listener);
	}

	#changed(): void {
		for (const listener of this.#listeners) listener();
	}
}

/** `/name args` → its parts; anything else (including `/` alone, or `//x`) is not a slash command. */
export function parseSlash(text: string): { name: string; args: string } | undefined {
	const m = /^\/([a-z][a-z0-9:._-]*)(?:\s+([\s\S]*))?$/i.exec(text.trim());
	return m ? { name: m[1]!.toLowerCase(), args: (m[2] ?? "").trim() } : undefined;
}

/** A line of the slash list: the argument hint before the description, as pi shows it. */
function item(name: string, description: string | undefined, hint: string | undefined): AutocompleteItem {
	const text = hint ? (description ? `${hint} — ${description}` : hint) : (description ?? "");
	return { value: name, label: name, ...(text ? { description: text } : {}) };
}

/** pi's matching: by the name without its `skill:` first, then skills that match only with it. */
function slashMatches(items: readonly AutocompleteItem[], query: string): AutocompleteItem[] {
	const bare = (name: string) => (name.startsWith("skill:") ? name.slice("skill:".length) : name);
	const first = fuzzyFilter([...items], query, (i) => bare(i.value));
	const found = new Set(first);
	const more = fuzzyFilter(
		items.filter((i) => i.value.startsWith("skill:") && !found.has(i)),
		query,
		(i) => i.value,
	);
	return [...first, ...more];
}

/**
 * pi's slash autocomplete: fuzzy over the command names while the cursor is in the first word, then the
 * command's own argument completion once a space follows a known name.
 */
export class SlashAutocomplete implements AutocompleteProvider {
	readonly triggerCharacters = ["/"];
	readonly #registry: CommandRegistry;

	constructor(registry: CommandRegistry) {
		this.#registry = registry;
	}

	/** Whether `before` (the line up to the cursor) is in the argument of a command that completes on Tab only. */
	tabOnly(before: string): boolean {
		const args = /^\/([a-z][a-z0-9:._-]*) +/i.exec(before);
		return args ? this.#registry.slash(args[1]!.toLowerCase())?.slash?.tabOnly === true : false;
	}

	async getSuggestions(
		lines: string[],
		cursorLine: number,
		cursorCol: number,
		options?: { force?: boolean },
	): Promise<AutocompleteSuggestions | null> {
		if (cursorLine !== 0) return null;
		const before = (lines[0] ?? "").slice(0, cursorCol);
		const name = /^\/(\S*)$/.exec(before);
		if (name) {
			const query = name[1]!;
			const index = this.#registry.slashIndex().byName;
			const listed: AutocompleteItem[] = [
				...this.#registry
					.listed()
					.map((entry) => entry.command)
					.filter((command) => command.slash && index.get(command.slash.name) === command)
					.filter((command) => this.#registry.allows(command))
					.map((c) => item(c.slash!.name, c.title, c.slash!.argumentHint)),
				...this.#registry
					.slashEntries()
					.filter(({ entry }) => !entry.unlisted)
					.map(({ entry }) => item(entry.name, entry.description, entry.argumentHint)),
			];
			const items = query ? slashMatches(listed, query) : listed;
			return items.length ? { items, prefix: before } : null;
		}
		const args = /^\/([a-z][a-z0-9:._-]*) +(.*)$/i.exec(before);
		const command = args && this.#registry.slash(args[1]!.toLowerCase());
		if (!args || !command?.slash?.complete) return null;
		if (command.slash.tabOnly && !options?.force) return null;
		const prefix = args[2]!;
		const items = await command.slash.complete(prefix);
		return items?.length ? { items, prefix } : null;
	}

	applyCompletion(
		lines: string[],
		cursorLine: number,
		cursorCol: number,
		item: AutocompleteItem,
		prefix: string,
	): { lines: string[]; cursorLine: number; cursorCol: number } {
		const line = lines[cursorLine] ?? "";
		const next = [...lines];
		if (prefix.startsWith("/")) {
			const replaced = `/${item.value} `;
			next[cursorLine] = replaced + line.slice(cursorCol).replace(/^\s+/, "");
			return { lines: next, cursorLine, cursorCol: replaced.length };
		}
		const start = cursorCol - prefix.length;
		next[cursorLine] = line.slice(0, start) + item.value + line.slice(cursorCol);
		return { lines: next, cursorLine, cursorCol: start + item.value.length };
	}
}
