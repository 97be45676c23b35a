import type { Component } from "@earendil-works/pi-tui";
import { visibleText } from "../../../ui/text.ts";
import { ThemedItem } from "../../../ui/transcript/themed.ts";
import type { ChatEntry } from "../contract.ts";
import type { DisplayItem } from "./display-items.ts";

export interface CustomEntryData {
	readonly entry: ChatEntry;
	/** The entry renderers' version: a renderer added or removed draws the entry again. */
	readonly version: number;
	/** How the transcript draws the entry itself: shown when every plugin's renderer declines it. */
	readonly fallback?: DisplayItem;
}

/** The kind renderers are registered under: a plugin entry's own type (`chat-mode.message`), else its kind. */
export function entryKind(entry: ChatEntry): string {
	return entry.kind === "plugin" ? entry.type : entry.kind;
}

/**
 * An entry a plugin's renderer draws; when every renderer declines, the transcript's own drawing of it (an entry
 * of a kind it knows), else one dim line that says what it is.
 */
export class CustomEntry extends ThemedItem<CustomEntryData> {
	readonly #resolve: (entry: ChatEntry) => Component | undefined;
	readonly #draw: (item: DisplayItem) => Component;

	constructor(
		theme: ConstructorParameters<typeof ThemedItem<CustomEntryData>>[0],
		data: CustomEntryData,
		resolve: (entry: ChatEntry) => Component | undefined,
		draw: (item: DisplayItem) => Component,
	) {
		super(theme, data);
		this.#resolve = resolve;
		this.#draw = draw;
	}

	protected build(): void {
		const drawn = this.#resolve(this.data.entry) ?? (this.data.fallback && this.#draw(this.data.fallback));
		if (drawn) {
			this.addChild(drawn);
			return;
		}
		const line = visibleText(`[${entryKind(this.data.entry)}]`, false);
		this.addChild({ invalidate() {}, render: () => [` ${this.theme.current.fg("dim", line)}`] });
	}
}
