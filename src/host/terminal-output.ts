/**
 * Everything the launcher writes to the terminal, written without ever blocking the launcher. Bun writes to a
 * TTY synchronously: a terminal that reads slowly (a busy emulator, a slow link) held the launcher in one write
 * for as long as the terminal took to read it, keys and the emergency exit included. Here one piece at a time
 * is in flight, written off the launcher's thread; the rest waits in order, and the UI's output is refused
 * while more than the backlog's bound waits (the launcher then has the UI redraw once the terminal caught up).
 */
import { write as fsWrite } from "node:fs";

/** Writes all of `data`, then calls `done` (with the error if it failed). */
export type TerminalSink = (data: string, done: (error?: unknown) => void) => void;

export interface TerminalOutputOptions {
	/** Characters that may wait before the UI's output is refused. */
	readonly maxBacklog?: number;
	/** The largest piece in flight: how long the last piece can keep a leaving launcher waiting. */
	readonly pieceChars?: number;
}

/** Several full redraws of a large screen; far more than a terminal shows at once. */
const MAX_BACKLOG = 1024 * 1024;
const PIECE_CHARS = 64 * 1024;
const AGAIN_MS = 5;

export class TerminalOutput {
	readonly #sink: TerminalSink;
	readonly #maxBacklog: number;
	readonly #pieceChars: number;
	#queue: string[] = [];
	#queued = 0;
	#writing = false;
	#idleWaiters: (() => void)[] = [];
	#failed = false;

	constructor(sink: TerminalSink, options: TerminalOutputOptions = {}) {
		this.#sink = sink;
		this.#maxBacklog = options.maxBacklog ?? MAX_BACKLOG;
		this.#pieceChars = options.pieceChars ?? PIECE_CHARS;
	}

	/** Characters waiting (not counting the piece in flight). */
	get backlog(): number {
		return this.#queued;
	}

	/** More waits than the UI's output may add to. */
	get congested(): boolean {
		return this.#queued > this.#maxBacklog;
	}

	/** The launcher's own writes: always taken, in order. */
	write(data: string): void {
		if (!data || this.#failed) return;
		this.#queue.push(data);
		this.#queued += data.length;
		this.#pump();
	}

	/** The UI's output: taken unless the terminal is behind; false when it was dropped. */
	offer(data: string): boolean {
		if (this.congested) return false;
		this.write(data);
		return true;
	}

	/** Drops whatever waits; the piece in flight still completes (it may not be cut short). */
	discard(): void {
		this.#queue = [];
		this.#queued = 0;
		this.#settleIfIdle();
	}

	/** Resolves once nothing waits and nothing is in flight. */
	idle(): Promise<void> {
		if (!this.#writing && this.#queued === 0) return Promise.resolve();
		return new Promise((resolve) => this.#idleWaiters.push(resolve));
	}

	#pump(): void {
		while (!this.#writing && this.#queue.length > 0) {
			const piece = this.#nextPiece();
			this.#writing = true;
			let sync = true;
			let doneSync = false;
			this.#sink(piece, (error) => {
				if (error !== undefined && error !== null) {
					// The terminal is gone: nothing more can reach it.
					this.#failed = true;
					this.#queue = [];
					this.#queued = 0;
				}
				this.#writing = false;
				if (sync) doneSync = true;
				else {
					this.#pump();
					this.#settleIfIdle();
				}
			});
			sync = false;
			// A sink that finished at once (a test's terminal): the loop writes the next piece.
			if (!doneSync) return;
		}
		this.#settleIfIdle();
	}

	/** The queue's head, whole pieces joined up to the piece size; a long one is cut (never inside a pair). */
	#nextPiece(): string {
		let piece = "";
		while (this.#queue.length > 0) {
			const head = this.#queue[0]!;
			const room = this.#pieceChars - piece.length;
			if (head.length <= room) {
				piece += head;
				this.#queue.shift();
				continue;
			}
			if (piece.length > 0) break;
			let cut = room;
			const last = head.charCodeAt(cut - 1);
			if (last >= 0xd800 && last <= 0xdbff) cut -= 1;
			piece = head.slice(0, cut);
			this.#queue[0] = head.slice(cut);
			break;
		}
		this.#queued -= piece.length;
		return piece;
	}

	#settleIfIdle(): void {
		if (this.#writing || this.#queued > 0) return;
		for (const resolve of this.#idleWaiters.splice(0)) resolve();
	}
}

/** The real terminal: the process' standard output, written by Bun's file system thread pool. */
export function ttySink(fd: number): TerminalSink {
	return (data, done) => {
		const bytes = Buffer.from(data, "utf8");
		const from = (offset: number) =>
			fsWrite(fd, bytes, offset, bytes.length - offset, null, (error, written) => {
				// A terminal left non-blocking by another program: it is full for now, not gone.
				if (error?.code === "EAGAIN") return void setTimeout(() => from(offset), AGAIN_MS);
				if (error) return done(error);
				if (offset + written < bytes.length) from(offset + written);
				else done();
			});
		from(0);
	};
}
