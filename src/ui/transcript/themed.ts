import { Container } from "@earendil-works/pi-tui";
import type { ThemeRef } from "../theme/theme-ref.ts";

/**
 * A transcript item: a container that rebuilds its children when its data, the theme's version or the width
 * changes, and otherwise hands back the lines it rendered last.
 */
export abstract class ThemedItem<D> extends Container {
	protected readonly theme: ThemeRef;
	protected data: D;
	#built: { version: number } | undefined;
	#cache: { width: number; lines: string[] } | undefined;

	constructor(theme: ThemeRef, data: D) {
		super();
		this.theme = theme;
		this.data = data;
	}

	/** New data for the same item: rebuilt on the next render only if it changed. */
	update(data: D, same: (a: D, b: D) => boolean = Object.is): void {
		if (same(this.data, data)) return;
		this.data = data;
		this.#built = undefined;
	}

	/** The children changed in place: render them again, without rebuilding. */
	protected invalidateLines(): void {
		this.#cache = undefined;
	}

	/** Forces a rebuild (e.g. tools expanded or collapsed). */
	rebuild(): void {
		this.#built = undefined;
	}

	override invalidate(): void {
		this.#built = undefined;
		super.invalidate();
	}

	protected abstract build(): void;

	override render(width: number): string[] {
		const version = this.theme.version;
		if (this.#built?.version !== version) {
			this.clear();
			this.build();
			this.#built = { version };
			this.#cache = undefined;
		}
		if (this.#cache?.width === width) return this.#cache.lines;
		const lines = [...super.render(width)];
		this.#cache = { width, lines };
		return lines;
	}
}
