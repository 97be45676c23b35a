import {
	type Component,
	type DefaultTextStyle,
	Markdown,
	type MarkdownOptions,
	type MarkdownTheme,
} from "@earendil-works/pi-tui";

const LINK_DEFINITION = /(^|\n) {0,3}\[[^\]\n]+\]:/;

/** After this many splits that rendered exactly like the whole text, the split is trusted for this answer. */
const VERIFICATIONS = 20;

/**
 * Markdown for text that grows by appends (a streaming answer): the finished blocks, up to the last blank line
 * outside a code fence, are lexed once and cached; only the growing block is lexed again on each append. Each
 * new split is checked against a render of the whole text, and a text that renders differently split (a
 * reference link defined later, say) falls back to one Markdown for good: the screen is always what the whole
 * text would render.
 */
export class StreamingMarkdown implements Component {
	readonly #make: (text: string) => Markdown;
	#text = "";
	#blocks: Markdown[] = [];
	/** Where the growing block starts in `#text`, and whether that point is inside a code fence (never). */
	#tailStart = 0;
	#tail: Markdown;
	#whole: Markdown | undefined;
	#unverified = false;
	#verified = 0;

	constructor(
		text: string,
		paddingX: number,
		paddingY: number,
		theme: MarkdownTheme,
		style?: DefaultTextStyle,
		options?: MarkdownOptions,
	) {
		this.#make = (t) => new Markdown(t, paddingX, paddingY, theme, style, options);
		this.#tail = this.#make("");
		this.setText(text);
	}

	setText(text: string): void {
		if (this.#whole) {
			this.#text = text;
			this.#whole.setText(text);
			return;
		}
		if (!text.startsWith(this.#text)) {
			this.#blocks = [];
			this.#tailStart = 0;
		}
		// A link reference definition changes links above it: such a text is only ever rendered whole.
		if (LINK_DEFINITION.test(text.slice(Math.max(0, this.#tailStart - 1)))) {
			this.#whole = this.#make(text);
			this.#text = text;
			this.#blocks = [];
			return;
		}
		this.#text = text;
		for (;;) {
			const end = blockEnd(text, this.#tailStart);
			if (end === undefined) break;
			this.#blocks.push(this.#make(text.slice(this.#tailStart, end)));
			this.#tailStart = end + 2;
			while (text[this.#tailStart] === "\n") this.#tailStart++;
			this.#unverified = true;
		}
		// More blank lines between blocks are still one gap.
		while (text[this.#tailStart] === "\n") this.#tailStart++;
		this.#tail.setText(text.slice(this.#tailStart));
	}

	invalidate(): void {
		for (const block of this.#blocks) block.invalidate();
		this.#tail.invalidate();
		this.#whole?.invalidate();
	}

	render(width: number): readonly string[] {
		if (this.#whole) return this.#whole.render(width);
		const lines: string[] = [];
		const gap = " ".repeat(width);
		for (const block of this.#blocks) {
			if (lines.length) lines.push(gap);
			lines.push(...block.render(width));
		}
		const tail = this.#tail.render(width);
		if (tail.length) {
			if (lines.length) lines.push(gap);
			lines.push(...tail);
		}
		if (this.#unverified && this.#verified < VERIFICATIONS) {
			this.#unverified = false;
			const whole = this.#make(this.#text);
			const expected = whole.render(width);
			if (expected.length !== lines.length || expected.some((line, i) => line !== lines[i])) {
				this.#whole = whole;
				this.#blocks = [];
				return expected;
			}
			this.#verified++;
		}
		return lines;
	}
}

/**
 * The end of the first finished block at or after `from`: a line followed by a blank line, outside a code
 * fence, once the next block has begun with a character that cannot continue this one (indented text after a
 * blank line still belongs to a list item or an indented code block).
 */
function blockEnd(text: string, from: number): number | undefined {
	let fence: string | undefined;
	let lineStart = from;
	while (lineStart <= text.length) {
		const newline = text.indexOf("\n", lineStart);
		if (newline === -1) return undefined;
		const line = text.slice(lineStart, newline);
		const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
		if (marker) {
			if (!fence) fence = marker[0];
			else if (marker[0] === fence) fence = undefined;
		}
		if (!fence && text[newline + 1] === "\n" && line.trim() !== "") {
			let next = newline + 2;
			while (text[next] === "\n") next++;
			const first = text[next];
			if (first === undefined) return undefined;
			if (first !== " " && first !== "\t") return newline;
		}
		lineStart = newline + 1;
	}
	return undefined;
}
