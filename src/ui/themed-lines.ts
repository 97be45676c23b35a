import type { Component } from "@earendil-works/pi-tui";
import { sameData } from "./same-data.ts";
import type { ThemeRef } from "./theme/theme-ref.ts";

/**
 * A component drawn from plain data as lines: built again only when its data, the theme's version or the
 * width changes (the header, the footer). Data equal to what is shown keeps the lines: the footer is given its
 * data again on every streamed frame, and building it measures and cuts text.
 */
export abstract class ThemedLines<D> implements Component {
	protected readonly theme: ThemeRef;
	protected data: D;
	#cache: { width: number; version: number; lines: string[] } | undefined;

	constructor(theme: ThemeRef, data: D) {
		this.theme = theme;
		this.data = data;
	}

	set(data: D): void {
		if (sameData(data, this.data)) return;
		this.data = data;
		this.#cache = undefined;
	}

	invalidate(): void {
		this.#cache = undefined;
	}

	protected abstract build(width: number): string[];

	render(width: number): string[] {
		const version = this.theme.version;
		if (this.#cache?.width === width && this.#cache.version === version) return this.#cache.lines;
		const lines = this.build(width);
		this.#cache = { width, version, lines };
		return lines;
	}
}
