import type { Terminal } from "@earendil-works/pi-tui";

/** A terminal that records what is written to it; its size is fixed at construction. */
export class FakeTerminal implements Terminal {
	readonly #columns: number;
	readonly #rows: number;
	constructor(columns = 80, rows = 24) {
		this.#columns = columns;
		this.#rows = rows;
	}
	output = "";
	onInput: ((data: string) => void) | undefined;
	stopped = false;
	start(onInput: (data: string) => void): void {
		this.onInput = onInput;
	}
	stop(): void {
		this.stopped = true;
	}
	async drainInput(): Promise<void> {}
	write(data: string): void {
		this.output += data;
	}
	get columns() {
		return this.#columns;
	}
	get rows() {
		return this.#rows;
	}
	get kittyProtocolActive() {
		return false;
	}
	moveBy(): void {}
	hideCursor(): void {}
	showCursor(): void {}
	clearLine(): void {}
	clearFromCursor(): void {}
	clearScreen(): void {}
	setTitle(): void {}
	setProgress(): void {}
	setProgramStatus(): void {}
	/** Where the output ends now: `until(text, mark)` then looks only at what came after. */
	mark(): number {
		return this.output.length;
	}

	async until(text: string, from = 0, timeoutMs = 10000): Promise<void> {
		const deadline = Date.now() + timeoutMs;
		while (!this.output.includes(text, from)) {
			if (Date.now() > deadline)
				throw new Error(`timed out waiting for ${JSON.stringify(text)} in ${JSON.stringify(this.output.slice(-400))}`);
			await Bun.sleep(20);
		}
	}
}
