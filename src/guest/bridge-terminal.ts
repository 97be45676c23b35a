import {
	type ProgramStatus,
	setCapabilityOverrides,
	setKittyProtocolActive,
	type Terminal,
} from "@earendil-works/pi-tui";
import type { Capabilities, GuestHost } from "../protocol/channel.ts";

/**
 * pi-tui's Terminal over the launcher channel: output goes out as `output` messages (the launcher filters
 * it); input, size and capabilities come in. The launcher owns the real terminal, so start/stop only attach.
 */
export class BridgeTerminal implements Terminal {
	#host: GuestHost;
	#columns: number;
	#rows: number;
	#capabilities: Capabilities;
	#onInput: ((data: string) => void) | undefined;
	#onResize: (() => void) | undefined;
	#pending = "";
	#flushQueued = false;

	constructor(host: GuestHost) {
		this.#host = host;
		this.#columns = host.start.columns;
		this.#rows = host.start.rows;
		this.#capabilities = host.start.capabilities;
		setKittyProtocolActive(this.#capabilities.kittyProtocol);
		setCapabilityOverrides(piTuiOverrides(this.#capabilities));
	}

	start(onInput: (data: string) => void, onResize: () => void): void {
		this.#onInput = onInput;
		this.#onResize = onResize;
	}

	stop(): void {
		this.#flush();
		this.#onInput = undefined;
		this.#onResize = undefined;
	}

	async drainInput(): Promise<void> {}

	/** Output of one turn of the event loop travels as one message. */
	write(data: string): void {
		this.#pending += data;
		if (this.#flushQueued) return;
		this.#flushQueued = true;
		queueMicrotask(() => this.#flush());
	}

	/** Called after each frame is sent: what is on screen may have changed who should get the keys. */
	onFlush: (() => void) | undefined;
	/** Called once a frame went out, with what was written (the launcher's images follow it). */
	afterFlush: ((data: string) => void) | undefined;

	#flush(): void {
		this.#flushQueued = false;
		this.onFlush?.();
		const data = this.#pending;
		this.#pending = "";
		const max = 512 * 1024;
		for (let i = 0; i < data.length; i += max) this.#host.post({ kind: "output", data: data.slice(i, i + max) });
		if (data) this.afterFlush?.(data);
	}

	get columns(): number {
		return this.#columns;
	}
	get rows(): number {
		return this.#rows;
	}
	get kittyProtocolActive(): boolean {
		return this.#capabilities.kittyProtocol;
	}
	get capabilities(): Capabilities {
		return this.#capabilities;
	}

	input(data: string): void {
		this.#onInput?.(data);
	}

	resize(columns: number, rows: number): void {
		this.#columns = Math.max(1, columns);
		this.#rows = Math.max(1, rows);
		this.#onResize?.();
	}

	setCapabilities(capabilities: Capabilities): void {
		this.#capabilities = capabilities;
		setKittyProtocolActive(capabilities.kittyProtocol);
		setCapabilityOverrides(piTuiOverrides(capabilities));
	}

	moveBy(lines: number): void {
		if (lines > 0) this.write(`\x1b[${lines}B`);
		else if (lines < 0) this.write(`\x1b[${-lines}A`);
	}
	hideCursor(): void {
		this.write("\x1b[?25l");
	}
	showCursor(): void {
		this.write("\x1b[?25h");
	}
	clearLine(): void {
		this.write("\x1b[K");
	}
	clearFromCursor(): void {
		this.write("\x1b[J");
	}
	clearScreen(): void {
		this.write("\x1b[2J\x1b[H");
	}
	setTitle(title: string): void {
		this.#host.post({ kind: "status", action: { kind: "title", text: title.slice(0, 4096) } });
	}
	setProgress(active: boolean): void {
		this.#host.post({ kind: "status", action: { kind: "progress", active } });
	}
	setProgramStatus(status: ProgramStatus): void {
		this.#host.post({ kind: "status", action: { kind: "programStatus", status: status.state } });
	}
}

/**
 * What pi-tui is told of the terminal, over what it would guess from the few shared environment facts: the
 * launcher's true color. Hyperlinks stay off for pi-tui, so a Markdown link whose text is not its address shows
 * the address in parentheses; the theme draws the links that show their own address (`ThemeRef.setHyperlinks`).
 */
function piTuiOverrides(capabilities: Capabilities) {
	return { trueColor: capabilities.trueColor, hyperlinks: false };
}
