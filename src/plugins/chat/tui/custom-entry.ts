import type { Component } from "@earendil-works/pi-tui";
import { visibleText } from "../../../ui/text.ts";
import { ThemedItem } from "../../../ui/transcript/themed.ts";
import type { ChatEntry } from "../contract.ts";

export interface CustomEntryData {
	readonly entry: ChatEntry;
	/** The entry renderers' version: a renderer added or removed draws the entry again. */
	readonly version: number;
}

/** The kind renderers are registered under: a plugin entry's own type (`chat-mode.message`), else its kind. */
export function entryKind(entry: ChatEntry): string {
	return entry.kind === "plugin" ? entry.type : entry.kind;
}

/** An entry a plugin's renderer draws; when every renderer declines, one dim line says what it is. */
export class CustomEntry extends ThemedItem<CustomEntryData> {
	readonly #resolve: (entry: ChatEntry) => Component | undefined;

	constructor(
		theme: ConstructorParameters<typeof ThemedItem<CustomEntryData>>[0],
		data: CustomEntryData,
		resolve: (entry: ChatEntry) => Component | undefined,
	) {
		super(theme, data);
		this.#resolve = resolve;
	}

	protected build(): void {
		const drawn = this.#resolve(this.data.entry);
		if (drawn) {
			this.addChild(drawn);
			return;
		}
		const line = visibleText(`[${entryKind(this.data.entry)}]`, false);
		this.addChild({ invalidate() {}, render: () => [` ${this.theme.current.fg("dim", line)}`] });
	}
}
