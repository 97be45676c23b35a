import type { LauncherMessage, StartData, WorkerMessage } from "../protocol/channel.ts";
import { RateWindow } from "../protocol/rate-window.ts";
import { checkWorkerMessage } from "../protocol/worker-message-check.ts";
import { type GuestBundleSource, takeWorker } from "./worker-spawn.ts";

/** Why a worker ended: it asked to, it stopped answering, it used too much memory, it crashed, or we ended it. */
export type WorkerEnd = "exited" | "unresponsive" | "memory" | "crashed" | "terminated";

export interface SandboxLimits {
	/** Ping interval, and how long without an answer before the worker is ended. */
	heartbeatMs: number;
	heartbeatTimeoutMs: number;
	/** The worker's own heap (reported by the bootstrap) and the process' growth since the worker started. */
	maxHeapBytes: number;
	maxRssGrowthBytes: number;
	/** Per second: frames to relay, characters of frames, characters of output, log lines. */
	framesPerSecond: number;
	frameCharsPerSecond: number;
	outputCharsPerSecond: number;
	logsPerSecond: number;
	/** Per second: characters of images to draw (base64), and image placements. */
	imageCharsPerSecond: number;
	imagePlacementsPerSecond: number;
}

export const DEFAULT_LIMITS: SandboxLimits = {
	heartbeatMs: 1000,
	heartbeatTimeoutMs: 5000,
	maxHeapBytes: 1024 * 1024 * 1024,
	maxRssGrowthBytes: 1536 * 1024 * 1024,
	framesPerSecond: 2000,
	frameCharsPerSecond: 16 * 1024 * 1024,
	// About what a terminal can take: a full redraw of a large screen (250×70) is some tens of KiB.
	outputCharsPerSecond: 4 * 1024 * 1024,
	logsPerSecond: 50,
	// A few screens of the largest images a second; each is decoded and encoded again by the launcher.
	imageCharsPerSecond: 8 * 1024 * 1024,
	imagePlacementsPerSecond: 240,
};

export interface SandboxOptions {
	readonly bundle: GuestBundleSource;
	readonly start: StartData;
	/** A validated message within its budget. */
	onMessage(message: WorkerMessage): void;
	/** Something the worker did wrong (a bad message, over a budget); shown to developers, never fatal. */
	onProblem(text: string): void;
	/** The worker's output went over its budget and was dropped (at every drop). */
	onOutputDropped?(): void;
	/** The worker is gone; called once. */
	onEnd(reason: WorkerEnd, detail: string): void;
	readonly limits?: Partial<SandboxLimits>;
	/** Monotonic milliseconds (a test's clock); `performance.now` by default. */
	readonly now?: () => number;
}

/**
 * One guest worker: the bootstrap locks its realm down and evaluates the bundle; everything it posts is
 * validated and budgeted here. A heartbeat and a memory watch end a worker that hangs or balloons, so the
 * launcher itself stays responsive.
 */
export class Sandbox {
	readonly #worker: Worker;
	readonly #options: SandboxOptions;
	readonly #limits: SandboxLimits;
	/** Budgets that refill every second; what is over budget is dropped and reported once per second. */
	readonly #budget: RateWindow;
	readonly #rssAtStart = process.memoryUsage.rss();
	#timer: ReturnType<typeof setInterval> | undefined;
	#ping = 0;
	readonly #now: () => number;
	readonly #beatMs: number;
	#lastPong: number;
	#lastBeat: number;
	#lastPingAt = 0;
	#ended = false;

	constructor(options: SandboxOptions) {
		this.#options = options;
		this.#limits = { ...DEFAULT_LIMITS, ...options.limits };
		this.#now = options.now ?? (() => performance.now());
		this.#budget = new RateWindow(1000, { now: this.#now });
		this.#lastPong = this.#now();
		this.#lastBeat = this.#lastPong;
		this.#beatMs = Math.min(this.#limits.heartbeatMs, 250);
		const taken = takeWorker(options.bundle);
		this.#worker = taken.worker;
		this.#worker.addEventListener("message", (event) => this.#receive(event.data));
		this.#worker.addEventListener("error", (event) => {
			event.preventDefault?.();
			this.#end("crashed", (event as ErrorEvent).message || "the worker failed");
		});
		this.#worker.addEventListener("close", () => this.#end("crashed", "the worker stopped"));
		this.#worker.postMessage({ kind: "init", start: options.start });
		// What a prewarmed worker said while it loaded (a failed load, its logs) counts as said now.
		for (const data of taken.early) this.#receive(data);
		this.#timer = setInterval(() => this.#beat(), this.#beatMs);
	}

	get ended(): boolean {
		return this.#ended;
	}

	post(message: LauncherMessage): void {
		if (!this.#ended) this.#worker.postMessage(message);
	}

	terminate(): void {
		this.#end("terminated", "ended by the launcher");
	}

	#beat(): void {
		const now = this.#now();
		// A beat this late means the launcher itself did not run (Ctrl+Z, SIGSTOP, a sleeping machine): the
		// worker was stopped with it, so its silence meanwhile says nothing.
		if (now - this.#lastBeat > Math.max(1000, 4 * this.#beatMs)) this.#lastPong = now;
		this.#lastBeat = now;
		if (now - this.#lastPong > this.#limits.heartbeatTimeoutMs) {
			return this.#end("unresponsive", `no answer for ${Math.round((now - this.#lastPong) / 1000)} s`);
		}
		const growth = process.memoryUsage.rss() - this.#rssAtStart;
		if (growth > this.#limits.maxRssGrowthBytes) {
			return this.#end("memory", `the process grew by ${Math.round(growth / 2 ** 20)} MiB`);
		}
		if (now - this.#lastPingAt >= this.#limits.heartbeatMs) {
			this.#lastPingAt = now;
			this.#worker.postMessage({ kind: "ping", n: ++this.#ping });
		}
	}

	#receive(data: unknown): void {
		if (this.#ended) return;
		const checked = checkWorkerMessage(data);
		if (!checked.ok) {
			if (this.#budget.firstRefusal("invalid")) this.#options.onProblem(`refused a worker message: ${checked.error}`);
			return;
		}
		const message: WorkerMessage = checked.message;
		const limits = this.#limits;
		switch (message.kind) {
			case "pong":
				this.#lastPong = this.#now();
				if ((message.heapBytes ?? 0) > limits.maxHeapBytes) {
					this.#end("memory", `the worker's heap reached ${Math.round(message.heapBytes! / 2 ** 20)} MiB`);
				}
				return;
			case "frame":
				if (
					!this.#budget.take("frames", 1, limits.framesPerSecond) ||
					!this.#budget.take("frameChars", message.text.length, limits.frameCharsPerSecond)
				) {
					return this.#drop("frame", "frames over the rate limit were dropped");
				}
				break;
			case "output":
				if (!this.#budget.take("output", message.data.length, limits.outputCharsPerSecond)) {
					if (this.#budget.firstRefusal("output")) this.#options.onProblem("output over the rate limit was dropped");
					this.#options.onOutputDropped?.();
					return;
				}
				break;
			case "log":
				if (!this.#budget.take("log", 1, limits.logsPerSecond)) return;
				break;
			case "image":
				if (!this.#budget.take("image", message.png.length, limits.imageCharsPerSecond))
					return this.#drop("image", "images over the rate limit were dropped");
				break;
			case "imagePlacements":
				if (!this.#budget.take("imagePlacements", 1, limits.imagePlacementsPerSecond))
					return this.#drop("imagePlacements", "image placements over the rate limit were dropped");
				break;
			case "exit":
				this.#options.onMessage(message);
				return this.#end("exited", `exit ${message.code}`);
		}
		this.#options.onMessage(message);
	}

	#drop(kind: string, text: string): void {
		if (this.#budget.firstRefusal(kind)) this.#options.onProblem(text);
	}

	#end(reason: WorkerEnd, detail: string): void {
		if (this.#ended) return;
		this.#ended = true;
		if (this.#timer) clearInterval(this.#timer);
		this.#worker.terminate();
		this.#options.onEnd(reason, detail);
	}
}
