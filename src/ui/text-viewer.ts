/**
 * The text viewer of /files, /changes and /grep (and of artifacts): a title, numbered lines, a search and page
 * keys, in the editor's place. A file's lines come from the server a page at a time; a diff or a document is
 * given whole. Every line is already visible text (sanitized) and styled by the caller.
 */
import { type Component, getKeybindings, matchesKey, truncateToWidth } from "@earendil-works/pi-tui";
import { typedChar } from "./text.ts";
import type { ThemeRef } from "./theme/theme-ref.ts";

export interface ViewerSource {
	/** Line `n` (1-based), styled; undefined while it is being fetched, null past the end. */
	line(n: number, width: number): string | null | undefined;
	/** The next line at or after `from` that contains `text` (case-insensitive), or null. */
	find(text: string, from: number): Promise<number | null>;
}

/** A document given whole (a diff, rendered Markdown): its lines at a width. */
export function wholeText(lines: (width: number) => readonly string[], plain?: (width: number) => readonly string[]) {
	let cached: { width: number; lines: readonly string[]; plain: readonly string[] } | undefined;
	const at = (width: number) => {
		if (cached?.width !== width) {
			const styled = lines(width);
			cached = { width, lines: styled, plain: plain?.(width) ?? styled };
		}
		return cached;
	};
	let lastWidth = 80;
	return {
		line: (n: number, width: number) => {
			lastWidth = width;
			return at(width).lines[n - 1] ?? null;
		},
		find: async (text: string, from: number) => {
			const lower = text.toLowerCase();
			const rows = at(lastWidth).plain;
			for (let i = Math.max(0, from - 1); i < rows.length; i++) {
				if (rows[i]!.toLowerCase().includes(lower)) return i + 1;
			}
			return null;
		},
	} satisfies ViewerSource;
}

export interface ViewerOptions {
	readonly title: string;
	/** Shown after the title, dim (a size, "Source only"). */
	readonly note?: string;
	readonly source: ViewerSource;
	/** Line numbers in a gutter (files); off for rendered documents. */
	readonly numbers: boolean;
	/** The line to start at and mark (a search match). */
	readonly at?: number;
	/** Extra keys of the caller (save, open in browser), with their hint. */
	readonly keys?: readonly { readonly key: string; readonly hint: string; run(): void }[];
	/** How many rows the viewer may take. */
	height(): number;
	onClose(): void;
	requestRender(): void;
}

export class TextViewer implements Component {
	readonly capturesViewportInput = true;
	readonly #theme: ThemeRef;
	readonly #options: ViewerOptions;
	#top: number;
	#mark: number | undefined;
	/** The search being typed (after `/`), or undefined. */
	#typing: string | undefined;
	#query = "";
	#status = "";
	/** The last line seen to exist (null past the end); paging down stops there. */
	#end: number | undefined;

	constructor(theme: ThemeRef, options: ViewerOptions) {
		this.#theme = theme;
		this.#options = options;
		this.#mark = options.at;
		this.#top = Math.max(1, (options.at ?? 1) - 3);
	}

	invalidate(): void {}

	#bodyRows(): number {
		return Math.max(3, this.#options.height() - 4);
	}

	render(width: number): string[] {
		const t = this.#theme.current;
		const rows = this.#bodyRows();
		const { numbers, source } = this.#options;
		const gutter = numbers ? String(this.#top + rows).length + 1 : 0;
		const textWidth = Math.max(1, width - gutter - 1);
		const out = [t.rule(width)];
		const title = ` ${t.bold(t.fg("accent", this.#options.title))}${this.#options.note ? t.fg("dim", `  ${this.#options.note}`) : ""}`;
		out.push(truncateToWidth(title, width, ""));
		for (let i = 0; i < rows; i++) {
			const n = this.#top + i;
			const line = source.line(n, textWidth);
			if (line === null) {
				// A short document takes only its own lines.
				this.#end = Math.min(this.#end ?? n, n);
				break;
			}
			const number = numbers
				? n === this.#mark
					? t.fg("accent", String(n).padStart(gutter - 1))
					: t.fg("dim", String(n).padStart(gutter - 1))
				: "";
			const text = line === undefined ? t.fg("dim", "…") : line;
			const marked = n === this.#mark && !numbers ? t.fg("accent", "▌") : " ";
			out.push(truncateToWidth(`${number}${numbers ? " " : marked}${text}`, width, ""));
		}
		const hint =
			this.#typing !== undefined
				? `/${this.#typing}${t.fg("dim", "  enter find  escape cancel")}`
				: t.fg(
						"dim",
						[
							this.#status,
							"↑↓ pgup pgdn home end",
							"/ find",
							...(this.#query ? ["n next"] : []),
							...(this.#options.keys ?? []).map((k) => k.hint),
							"escape close",
						]
							.filter(Boolean)
							.join("  "),
					);
		out.push(truncateToWidth(` ${hint}`, width, ""), t.rule(width));
		return out;
	}

	#scrollTo(top: number): void {
		const rows = this.#bodyRows();
		const last = this.#end !== undefined ? Math.max(1, this.#end - rows) : undefined;
		this.#top = Math.max(1, last !== undefined ? Math.min(top, last) : top);
		this.#options.requestRender();
	}

	#find(from: number): void {
		const query = this.#query;
		this.#status = "finding…";
		this.#options.requestRender();
		void this.#options.source.find(query, from).then(
			(n) => {
				if (query !== this.#query) return;
				if (n === null) this.#status = `"${query}" not found after line ${from - 1}`;
				else {
					this.#status = "";
					this.#mark = n;
					this.#top = Math.max(1, n - 3);
				}
				this.#options.requestRender();
			},
			() => {
				this.#status = "the search failed";
				this.#options.requestRender();
			},
		);
	}

	handleInput(data: string): void {
		const kb = getKeybindings();
		if (this.#typing !== undefined) {
			if (kb.matches(data, "tui.select.cancel")) this.#typing = undefined;
			else if (kb.matches(data, "tui.select.confirm")) {
				this.#query = this.#typing;
				this.#typing = undefined;
				if (this.#query) this.#find(this.#top);
			} else if (kb.matches(data, "tui.editor.deleteCharBackward")) this.#typing = this.#typing.slice(0, -1);
			else {
				const c = typedChar(data);
				if (c) this.#typing += c;
			}
			this.#options.requestRender();
			return;
		}
		const rows = this.#bodyRows();
		for (const key of this.#options.keys ?? []) {
			if (matchesKey(data, key.key as Parameters<typeof matchesKey>[1])) return key.run();
		}
		if (kb.matches(data, "tui.select.cancel") || data === "q") return this.#options.onClose();
		if (kb.matches(data, "tui.select.up")) return this.#scrollTo(this.#top - 1);
		if (kb.matches(data, "tui.select.down")) return this.#scrollTo(this.#top + 1);
		if (kb.matches(data, "tui.select.pageUp") || matchesKey(data, "pageUp")) return this.#scrollTo(this.#top - rows);
		if (kb.matches(data, "tui.select.pageDown") || matchesKey(data, "pageDown") || data === " ")
			return this.#scrollTo(this.#top + rows);
		if (matchesKey(data, "home") || data === "g") return this.#scrollTo(1);
		if (matchesKey(data, "end") || data === "G") return this.#scrollTo(this.#end ?? this.#top + rows * 10);
		if (data === "/") {
			this.#typing = "";
			this.#options.requestRender();
			return;
		}
		if (data === "n" && this.#query) this.#find((this.#mark ?? this.#top) + 1);
	}
}
