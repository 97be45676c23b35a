import {
	type Component,
	type DefaultTextStyle,
	Markdown,
	type MarkdownOptions,
	type MarkdownTheme,
} from "@earendil-works/pi-tui";

const LINK_DEFINITION = /(^|\n) {0,3}\[[^\]\n]+\]:/;

/** Paragraph chunks checked against the whole text (cheap while the paragraph is short; then trusted). */
const CHUNK_VERIFICATIONS = 3;
/** A growing paragraph is frozen in chunks of this many lines, so an append lexes only the newest lines. */
const CHUNK_LINES = 16;

/**
 * A line that can only continue a paragraph: it starts no block (heading, quote, list, fence, table, HTML,
 * thematic break, setext underline, indented code) and ends in no hard break.
 */
const PLAIN_LINE = /^(?! {4}|\t| {0,3}(?:[#>*+\-=_`~|<]|\d))[^|]*[^\s\\|]$/;
/** A line being typed that may still become one that is not plain. */
const BLOCK_START = /^(?: {4}|\t| {0,3}(?:[#>*+\-=_`~|<]|\d))|\|/;

/** A paragraph's text whose inline markup closes within it (so cutting after it changes no emphasis, code or link). */
function inlineClosed(text: string): boolean {
	const count = (pattern: RegExp) => text.match(pattern)?.length ?? 0;
	const doubles = (text.match(/\*\*|__|~~/g) ?? []).length;
	const single = text.replace(/\*\*|__|~~/g, "");
	return (
		doubles % 2 === 0 &&
		count(/\*/g) % 2 === 0 &&
		count(/_/g) % 2 === 0 &&
		count(/`/g) % 2 === 0 &&
		count(/\$/g) % 2 === 0 &&
		count(/\[/g) === count(/\]/g) &&
		count(/\(/g) === count(/\)/g) &&
		count(/</g) === count(/>/g) &&
		!single.includes("~")
	);
}

interface Piece {
	readonly markdown: Markdown;
	/** A blank line before it: a new block. Paragraph chunks follow the chunk before them directly. */
	readonly gap: boolean;
}

/**
 * Markdown for text that grows by appends (a streaming answer): the finished blocks, up to the last blank line
 * outside a code fence, are lexed once and cached; only the growing block is lexed again on each append. A
 * long growing paragraph is frozen in chunks of whole lines where its inline markup is closed, so its cost per
 * append stays flat; a line that could change the paragraph's meaning (a setext underline, a list, a hard
 * break) melts the chunks back into one. Splits are checked against a render of the whole text, and a text
 * that renders differently split (a reference link defined later, say) falls back to one Markdown for good:
 * the screen is always what the whole text would render.
 */
export class StreamingMarkdown implements Component {
	readonly #make: (text: string) => Markdown;
	readonly #chunking: boolean;
	#text = "";
	#pieces: Piece[] = [];
	/** Where the open (unfinished) block starts in `#text`. */
	#blockStart = 0;
	/** Where the live tail starts: the open block, after any chunks frozen from it. */
	#tailStart = 0;
	/** How many of the last pieces are chunks of the open block. */
	#blockChunks = 0;
	/** The open block has a line that is not plain paragraph text: it is lexed whole. */
	#blockMixed = false;
	/** How far the open block's complete lines were checked for plainness. */
	#checkedTo = 0;
	/** The line being typed may end the paragraph: the open block shows whole (its chunks kept) until it is complete. */
	#holdChunks = false;
	#tail: Markdown;
	#whole: Markdown | undefined;
	/** The whole text's Markdown that checks the splits: kept, so a check may render only the blocks that are new. */
	#verifier: Markdown | undefined;
	#unverified = false;
	/**
	 * Blocks closed so far: the split is checked after the 1st, 4th, 16th, 64th… (a few checks, spread over the
	 * answer; each renders the whole text, so together they cost a third of one more render of it).
	 */
	#closed = 0;
	#chunkVerifications = 0;
	/** The piece that blocks closed by the current append go into, and where its text starts. */
	#batch: { readonly from: number; piece: Piece } | undefined;

	constructor(
		text: string,
		paddingX: number,
		paddingY: number,
		theme: MarkdownTheme,
		style?: DefaultTextStyle,
		options?: MarkdownOptions,
	) {
		this.#make = (t) => new Markdown(t, paddingX, paddingY, theme, style, options);
		// Vertical padding would come between chunks of one paragraph.
		this.#chunking = paddingY === 0;
		this.#tail = this.#make("");
		this.setText(text);
	}

	setText(text: string): void {
		if (this.#whole) {
			this.#text = text;
			this.#whole.setText(text);
			return;
		}
		if (!text.startsWith(this.#text)) this.#reset();
		// A link reference definition changes links above it: such a text is only ever rendered whole.
		if (LINK_DEFINITION.test(text.slice(Math.max(0, this.#blockStart - 1)))) {
			this.#whole = this.#make(text);
			this.#text = text;
			this.#pieces = [];
			return;
		}
		this.#text = text;
		this.#batch = undefined;
		for (;;) {
			const end = blockEnd(text, this.#blockStart);
			if (end === undefined) break;
			this.#closeBlock(text, end);
		}
		// More blank lines between blocks are still one gap.
		if (this.#blockChunks === 0) {
			while (text[this.#blockStart] === "\n") this.#blockStart++;
			this.#tailStart = this.#blockStart;
			this.#checkedTo = Math.max(this.#checkedTo, this.#blockStart);
		}
		if (this.#chunking) this.#chunkParagraph(text);
		this.#tail.setText(text.slice(this.#holdChunks ? this.#blockStart : this.#tailStart));
	}

	invalidate(): void {
		this.#verifier = undefined;
		for (const piece of this.#pieces) piece.markdown.invalidate();
		this.#tail.invalidate();
		this.#whole?.invalidate();
	}

	render(width: number): readonly string[] {
		if (this.#whole) return this.#whole.render(width);
		const lines: string[] = [];
		const gap = " ".repeat(width);
		const chunks = this.#holdChunks ? 0 : this.#blockChunks;
		const shown = this.#pieces.length - (this.#blockChunks - chunks);
		for (const piece of this.#pieces.slice(0, shown)) {
			if (lines.length && piece.gap) lines.push(gap);
			lines.push(...piece.markdown.render(width));
		}
		const tail = this.#tail.render(width);
		if (tail.length) {
			// pi-tui draws a block that shows nothing (a bare `>` being typed) as one empty line when alone; after
			// other blocks the whole text has only the gap before it.
			const nothing = tail.length === 1 && tail[0] === "";
			if (lines.length && chunks === 0) lines.push(gap);
			if (!nothing || lines.length === 0) lines.push(...tail);
		}
		if (this.#unverified) {
			this.#unverified = false;
			const whole = this.#verifier ?? this.#make(this.#text);
			whole.setText(this.#text);
			const expected = whole.render(width);
			if (expected.length !== lines.length || expected.some((line, i) => line !== lines[i])) {
				this.#whole = whole;
				this.#verifier = undefined;
				this.#pieces = [];
				return expected;
			}
			// Kept without its lines (an answer is not held twice); its rendered blocks are cached weakly by pi-tui
			// and serve the next check while they live.
			whole.setText("");
			this.#verifier = whole;
		}
		return lines;
	}

	#reset(): void {
		this.#pieces = [];
		this.#blockStart = 0;
		this.#tailStart = 0;
		this.#blockChunks = 0;
		this.#blockMixed = false;
		this.#checkedTo = 0;
		this.#holdChunks = false;
	}

	/** The open block ended (a blank line follows): it becomes a piece, or its last chunk, and a new block opens. */
	#closeBlock(text: string, end: number): void {
		// Its last lines may make it something else (a setext heading): then it is one block after all.
		if (this.#blockChunks > 0 && !plainLines(text, this.#checkedTo, end)) this.#melt();
		if (this.#blockChunks > 0) {
			const rest = text.slice(this.#tailStart, end);
			if (rest) this.#pieces.push({ markdown: this.#make(rest), gap: false });
		} else {
			const batch = this.#batch;
			if (batch && this.#pieces.at(-1) === batch.piece) {
				// Blocks that one append closes are one piece (one Markdown, one lex), rendered as the whole text would.
				batch.piece = { markdown: this.#make(text.slice(batch.from, end)), gap: batch.piece.gap };
				this.#pieces[this.#pieces.length - 1] = batch.piece;
			} else {
				const piece = { markdown: this.#make(text.slice(this.#blockStart, end)), gap: true };
				this.#pieces.push(piece);
				this.#batch = { from: this.#blockStart, piece };
			}
			this.#closed++;
			if (isPowerOfFour(this.#closed)) this.#unverified = true;
		}
		let next = end + 2;
		while (text[next] === "\n") next++;
		this.#blockStart = next;
		this.#tailStart = next;
		this.#blockChunks = 0;
		this.#blockMixed = false;
		this.#checkedTo = next;
	}

	/**
	 * Freezes whole lines of a growing paragraph while every line so far is plain and the frozen part closes
	 * its inline markup. A complete line that is not plain (it may end the paragraph or make it a heading)
	 * melts the chunks back into the tail, and the block is lexed whole from then on; a line still being
	 * typed that may become one shows the block whole until it is complete.
	 */
	#chunkParagraph(text: string): void {
		this.#holdChunks = false;
		if (this.#blockMixed) return;
		const lastNewline = text.lastIndexOf("\n");
		if (lastNewline >= this.#checkedTo) {
			if (!plainLines(text, this.#checkedTo, lastNewline)) return this.#melt();
			this.#checkedTo = lastNewline + 1;
		}
		if (BLOCK_START.test(text.slice(Math.max(lastNewline + 1, this.#blockStart)))) {
			this.#holdChunks = true;
			return;
		}
		let lines = 0;
		let cut: number | undefined;
		for (let i = text.indexOf("\n", this.#tailStart); i !== -1 && i <= lastNewline; i = text.indexOf("\n", i + 1)) {
			lines++;
			if (lines >= CHUNK_LINES && inlineClosed(text.slice(this.#tailStart, i))) cut = i;
		}
		if (cut === undefined) return;
		this.#pieces.push({
			markdown: this.#make(text.slice(this.#tailStart, cut)),
			gap: this.#blockChunks === 0 && this.#pieces.length > 0,
		});
		this.#blockChunks++;
		this.#tailStart = cut + 1;
		if (this.#chunkVerifications < CHUNK_VERIFICATIONS) {
			this.#chunkVerifications++;
			this.#unverified = true;
		}
	}

	/** The open block is lexed whole again (its chunks dropped), and stays so until it ends. */
	#melt(): void {
		if (this.#blockChunks > 0) {
			this.#pieces.splice(this.#pieces.length - this.#blockChunks, this.#blockChunks);
			this.#blockChunks = 0;
		}
		this.#tailStart = this.#blockStart;
		this.#blockMixed = true;
	}
}

const isPowerOfFour = (n: number) => (n & (n - 1)) === 0 && (n & 0x55555555) !== 0;

/** Whether every line from `from` to the line that ends at `end` is plain. */
function plainLines(text: string, from: number, end: number): boolean {
	for (let at = from; at < end; ) {
		const newline = text.indexOf("\n", at);
		const stop = newline === -1 || newline > end ? end : newline;
		if (!PLAIN_LINE.test(text.slice(at, stop))) return false;
		at = stop + 1;
	}
	return true;
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
