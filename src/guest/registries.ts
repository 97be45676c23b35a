/**
 * The registries plugins extend the chat surface through: entry renderers by kind, tool renderers by
 * name and ordered resolvers, Markdown transformers, and slots on the screen. Each registration returns its own removal.
 */
import { type Component, Container } from "@earendil-works/pi-tui";
import { type EntrySchema, entryKey } from "../protocol/entry-schema.ts";
import { own } from "../protocol/own-keys.ts";
import type { SchemaChecks } from "../protocol/schema-checks.ts";
import { visibleText } from "../ui/text.ts";
import type { ThemeRef } from "../ui/theme/theme-ref.ts";
import { generic, TOOL_RENDERERS, type ToolCardData, type ToolRenderer } from "../ui/tools/tool-card.ts";
import { StatusLine } from "../ui/transcript/status-line.ts";

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

/** A committed transcript entry, as entry renderers receive it: its kind says what else it holds. */
export interface TranscriptEntry {
	readonly kind: string;
	readonly seq: number;
}

/** Draws a committed entry of one kind in place of the transcript's own display; undefined declines. */
export type EntryRenderer = (entry: TranscriptEntry, theme: ThemeRef) => Component | undefined;

/** A plugin's entry whose `data` its schema accepted: the entry as the transcript has it, and its typed data. */
export interface CheckedEntry<Data> {
	readonly entry: TranscriptEntry;
	readonly data: Data;
}

/** Draws a plugin's entry of one type from its checked data; undefined declines. */
export type PluginEntryRenderer<Data> = (entry: CheckedEntry<Data>, theme: ThemeRef) => Component | undefined;

/** What stands in for a plugin's entry whose data its schema refused: the transcript goes on around it. */
function unreadable(theme: ThemeRef, type: string): Component {
	return new StatusLine(theme, {
		text: `(a ${visibleText(type, false)} entry that could not be read)`,
		tone: "warning",
	});
}

/**
 * Plugins' renderers for transcript entries, by entry kind: the latest registration is asked first. A plugin's
 * own entry type (`<plugin>.<name>`) is registered with its schema, and its renderer sees data that passed it.
 */
export class EntryRenderers {
	readonly #byKind = new Map<string, EntryRenderer[]>();
	readonly #checks: SchemaChecks;
	#version = 0;

	/** `checks`: how an entry's data is checked against its schema (the bundle's precompiled validators). */
	constructor(checks: SchemaChecks) {
		this.#checks = checks;
	}

	/** A renderer for one of the transcript's own kinds (`user`); a plugin's entry type goes to `registerEntry`. */
	register(kind: string, renderer: EntryRenderer): () => void {
		if (kind.includes(".")) throw new Error(`${kind} is a plugin's entry type: register it with its schema`);
		return this.#add(kind, renderer);
	}

	/**
	 * A renderer for a plugin's entry type, given its data as the schema declares it. Data the schema refuses
	 * never reaches the renderer: a line says the entry could not be read.
	 */
	registerEntry<Data>(schema: EntrySchema<Data>, renderer: PluginEntryRenderer<Data>): () => void {
		const key = entryKey(schema);
		return this.#add(schema.type, (entry, theme) => {
			const verdict = this.#checks.check(key, schema.data, own(entry, "data"));
			if (!verdict.ok) return unreadable(theme, schema.type);
			return renderer({ entry, data: verdict.value as Data }, theme);
		});
	}

	/** A plugin's entry of this type, with its data checked against the schema; undefined for any other or bad data. */
	check<Data>(schema: EntrySchema<Data>, entry: TranscriptEntry): CheckedEntry<Data> | undefined {
		if (own(entry, "kind") !== "plugin" || own(entry, "type") !== schema.type) return undefined;
		const verdict = this.#checks.check(entryKey(schema), schema.data, own(entry, "data"));
		return verdict.ok ? { entry, data: verdict.value as Data } : undefined;
	}

	#add(kind: string, renderer: EntryRenderer): () => void {
		this.#byKind.set(kind, [renderer, ...(this.#byKind.get(kind) ?? [])]);
		this.#version++;
		return () => {
			this.#byKind.set(
				kind,
				(this.#byKind.get(kind) ?? []).filter((r) => r !== renderer),
			);
			this.#version++;
		};
	}

	/** Changes whenever a renderer comes or goes, so items drawn before are drawn again. */
	get version(): number {
		return this.#version;
	}

	has(kind: string): boolean {
		return (this.#byKind.get(kind)?.length ?? 0) > 0;
	}

	/**
	 * The first renderer's component (`kind`: the kind to look up, when the entry says it elsewhere: a plugin's
	 * entry's `type`); a renderer that throws is skipped, so one plugin cannot break the transcript. */
	resolve(entry: TranscriptEntry, theme: ThemeRef, kind: string = entry.kind): Component | undefined {
		for (const renderer of this.#byKind.get(kind) ?? []) {
			try {
				const component = renderer(entry, theme);
				if (component) return component;
			} catch {
				// The plugin's problem, not the transcript's.
			}
		}
		return undefined;
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

/** Where plugins put their own components on the chat screen (pi's extension widgets and header parts). */
export type SlotName = "header" | "widgets:above" | "widgets:below";

/**
 * Named places for plugins' components, each an ordered container the screen mounts once; the footer's plugin
 * status line is a keyed set of short texts, shown sorted by key (pi).
 */
export class Slots {
	readonly #containers = new Map<SlotName, Container>();
	readonly #statuses = new Map<string, string>();
	readonly #listeners = new Set<() => void>();

	constructor(changed?: () => void) {
		if (changed) this.#listeners.add(changed);
	}

	/** A component or a status came or went. */
	onChange(listener: () => void): () => void {
		this.#listeners.add(listener);
		return () => this.#listeners.delete(listener);
	}

	#changed(): void {
		for (const listener of [...this.#listeners]) listener();
	}

	container(name: SlotName): Container {
		let container = this.#containers.get(name);
		if (!container) {
			container = new Container();
			this.#containers.set(name, container);
		}
		return container;
	}

	add(name: SlotName, component: Component): () => void {
		const container = this.container(name);
		container.addChild(component);
		this.#changed();
		return () => {
			container.removeChild(component);
			this.#changed();
		};
	}

	/** A plugin's footer status (`undefined` clears it). */
	setStatus(key: string, text: string | undefined): void {
		if (text === undefined) this.#statuses.delete(key);
		else this.#statuses.set(key, text);
		this.#changed();
	}

	statuses(): string[] {
		return [...this.#statuses.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, text]) => text);
	}
}
