/** pi's limits for what a tool hands the model: 2,000 lines or 50 KiB, whichever comes first. */
export const MAX_LINES = 2000;
export const MAX_BYTES = 50 * 1024;

export function formatSize(bytes: number): string {
	if (bytes < 1024) return `${bytes}B`;
	if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)}KB`;
	return `${(bytes / 1024 / 1024).toFixed(1)}MB`;
}

export interface HeadTruncation {
	readonly content: string;
	readonly truncated: boolean;
	readonly truncatedBy: "lines" | "bytes" | null;
	readonly outputLines: number;
	readonly firstLineExceedsLimit: boolean;
}

/** Keeps the first lines that fit (for `read`); never cuts a line in half. */
export function truncateHead(lines: readonly string[], maxLines = MAX_LINES, maxBytes = MAX_BYTES): HeadTruncation {
	let bytes = 0;
	let count = 0;
	let by: "lines" | "bytes" | null = null;
	for (const line of lines) {
		if (count >= maxLines) {
			by = "lines";
			break;
		}
		const size = Buffer.byteLength(line) + (count > 0 ? 1 : 0);
		if (bytes + size > maxBytes) {
			by = "bytes";
			break;
		}
		bytes += size;
		count++;
	}
	return {
		content: lines.slice(0, count).join("\n"),
		truncated: by !== null,
		truncatedBy: by,
		outputLines: count,
		firstLineExceedsLimit: by === "bytes" && count === 0,
	};
}

/**
 * The tail of a growing output (for `bash`): the last MAX_LINES lines within MAX_BYTES, plus the totals
 * needed for pi's "[Showing lines X-Y of Z …]" notice.
 */
export class TailBuffer {
	#chunks: string[] = [];
	#bytes = 0;
	#totalLines = 1;
	#totalBytes = 0;
	#dropped = false;

	append(text: string): void {
		if (text === "") return;
		this.#chunks.push(text);
		const size = Buffer.byteLength(text);
		this.#bytes += size;
		this.#totalBytes += size;
		for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) this.#totalLines++;
		// Keep a bounded window in memory: twice the byte budget is enough to cut the tail from.
		while (this.#bytes > MAX_BYTES * 2 && this.#chunks.length > 1) {
			const first = this.#chunks.shift() ?? "";
			this.#bytes -= Buffer.byteLength(first);
			this.#dropped = true;
		}
	}

	get totalBytes(): number {
		return this.#totalBytes;
	}

	snapshot(): {
		content: string;
		truncated: boolean;
		totalLines: number;
		outputLines: number;
		by: "lines" | "bytes" | null;
	} {
		let text = this.#chunks.join("");
		if (text.endsWith("\n")) text = text.slice(0, -1);
		const totalLines = this.#totalBytes === 0 ? 0 : this.#totalLines - (this.#chunks.at(-1)?.endsWith("\n") ? 1 : 0);
		let lines = text === "" ? [] : text.split("\n");
		// What was dropped from memory may have cut the first kept line; it is not shown half.
		if (this.#dropped && lines.length > 1) lines.shift();
		let by: "lines" | "bytes" | null = this.#dropped ? "bytes" : null;
		if (lines.length > MAX_LINES) {
			lines = lines.slice(-MAX_LINES);
			by = "lines";
		}
		let bytes = lines.reduce((n, l) => n + Buffer.byteLength(l) + 1, 0);
		while (bytes > MAX_BYTES && lines.length > 1) {
			bytes -= Buffer.byteLength(lines.shift() ?? "") + 1;
			by = "bytes";
		}
		if (this.#dropped && lines.length > 0 && by !== "lines") by = "bytes";
		return { content: lines.join("\n"), truncated: by !== null, totalLines, outputLines: lines.length, by };
	}
}
