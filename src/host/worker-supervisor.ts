/**
 * The UI workers of one launcher run: the one on screen, and during a swap (`/reload`, a newer bundle on the
 * server) the one taking over, whose output is held until it is ready. A worker that crashes or hangs is
 * replaced with the last snapshot (the draft, the session, the reading position), a few times a minute at most.
 */

import type { ConnectionState, StartData, WorkerMessage } from "../protocol/channel.ts";
import { errorText } from "../protocol/errors.ts";
import type { Clock } from "./clock.ts";
import { type ModeObserver, type MousePolicy, OutputFilter } from "./output-filter.ts";
import { Sandbox, type SandboxLimits, type WorkerEnd } from "./sandbox.ts";
import { mark, note } from "./timeline.ts";
import type { GuestBundleSource } from "./worker-spawn.ts";

export interface GuestWorker {
	readonly sandbox: Sandbox;
	readonly filter: OutputFilter;
	/** The session it last said it shows. */
	session?: string;
}

type Swap =
	| { readonly kind: "steady" }
	/** A new worker is starting; its output is held until it says it is ready. */
	| { readonly kind: "swapping"; readonly incoming: GuestWorker; readonly held: string[] };

const RESTARTS_PER_MINUTE = 3;
/** How long a reload waits for the UI's snapshot before it starts the new UI from the last one kept. */
const SNAPSHOT_WAIT_MS = 1000;

export interface SupervisorOptions {
	readonly bundle: GuestBundleSource;
	/** The server's bundle; given the running one's hash, `undefined` when that is still the one served. */
	fetchBundle(runningHash?: string): Promise<GuestBundleSource | undefined>;
	/** What a new worker is told at start (with the snapshot it takes over). */
	startData(reason: StartData["reason"], snapshot: string | undefined): StartData;
	connectionState(): ConnectionState;
	readonly limits?: Partial<SandboxLimits>;
	readonly mouse: MousePolicy;
	/** Whether the terminal takes hyperlinks now (the filter passes only those that show their address). */
	links(): boolean;
	readonly modes: ModeObserver;
	readonly clock: Clock;
	/** The filtered output of the worker on screen. */
	show(data: string): void;
	/** The worker on screen wrote more than its budget; the rest of it was dropped. */
	outputDropped(): void;
	/** Every other message, with whether its worker is the one on screen. */
	onMessage(worker: GuestWorker, message: WorkerMessage, current: boolean): void;
	/** A worker went away (crash, swap, exit): questions it asked are withdrawn. */
	onGone(worker: GuestWorker): void;
	/** Another worker is now on screen (restart or swap): the terminal and the connection start afresh for it. */
	onReplaced(): void;
	/** The UI kept failing: the launcher ends. */
	onGiveUp(): void;
	problem(text: string): void;
}

export class WorkerSupervisor {
	readonly #options: SupervisorOptions;
	#bundle: GuestBundleSource;
	#active: GuestWorker | undefined;
	#swap: Swap = { kind: "steady" };
	#snapshot: string | undefined;
	#snapshotWaiters: (() => void)[] = [];
	readonly #restarts: number[] = [];
	#stopped = false;

	constructor(options: SupervisorOptions) {
		this.#options = options;
		this.#bundle = options.bundle;
	}

	get active(): GuestWorker | undefined {
		return this.#active;
	}

	isCurrent(worker: GuestWorker): boolean {
		return worker === this.#active && !this.#stopped;
	}

	start(): void {
		this.#active = this.#spawn("start");
	}

	/** To the worker on screen. */
	post(message: Parameters<Sandbox["post"]>[0]): void {
		this.#active?.sandbox.post(message);
	}

	/** To the worker on screen and the one taking over (the terminal's size, the person's preferences). */
	postAll(message: Parameters<Sandbox["post"]>[0]): void {
		this.#active?.sandbox.post(message);
		if (this.#swap.kind === "swapping") this.#swap.incoming.sandbox.post(message);
	}

	/** Swaps in a new worker on the server's current bundle (`/reload`), or on a newer one the server serves. */
	async reload(onlyIfNewer: boolean): Promise<void> {
		if (this.#busy()) return;
		try {
			const next = await this.#options.fetchBundle(onlyIfNewer ? this.#bundle.hash : undefined);
			if (!next || (onlyIfNewer && next.hash === this.#bundle.hash) || this.#busy()) return;
			this.#bundle = next;
		} catch (error) {
			if (!onlyIfNewer) this.#options.problem(`reload: ${errorText(error)}`);
			return;
		}
		// The successor starts from the person's work as it is now: the draft and the reading position.
		await this.#freshSnapshot();
		if (this.#busy()) return;
		this.#swap = { kind: "swapping", incoming: this.#spawn("reload"), held: [] };
	}

	/** Stopped, or already swapping: no other swap starts. */
	#busy(): boolean {
		return this.#stopped || this.#swap.kind === "swapping";
	}

	stop(): void {
		this.#stopped = true;
		if (this.#swap.kind === "swapping") this.#swap.incoming.sandbox.terminate();
		this.#active?.sandbox.terminate();
	}

	#spawn(reason: StartData["reason"]): GuestWorker {
		const filter = new OutputFilter({
			mouse: this.#options.mouse,
			observer: this.#options.modes,
			links: this.#options.links,
		});
		const worker: { sandbox?: Sandbox; filter: OutputFilter; session?: string } = { filter };
		const sandbox = new Sandbox({
			bundle: this.#bundle,
			start: this.#options.startData(reason, this.#snapshot),
			...(this.#options.limits ? { limits: this.#options.limits } : {}),
			onMessage: (message) => {
				// A worker's message never takes the launcher down.
				try {
					this.#receive(worker as GuestWorker, message);
				} catch (error) {
					this.#options.problem(`handling a worker message (${message.kind}): ${errorText(error)}`);
				}
			},
			onProblem: (text) => this.#options.problem(text),
			onOutputDropped: () => {
				if (this.isCurrent(worker as GuestWorker)) this.#options.outputDropped();
			},
			onEnd: (why, detail) => this.#ended(worker as GuestWorker, why, detail),
		});
		worker.sandbox = sandbox;
		sandbox.post({ kind: "connection", state: this.#options.connectionState() });
		return worker as GuestWorker;
	}

	#receive(worker: GuestWorker, message: WorkerMessage): void {
		const current = this.isCurrent(worker);
		const swap = this.#swap;
		switch (message.kind) {
			case "output": {
				mark("first output");
				const safe = worker.filter.write(message.data);
				if (swap.kind === "swapping" && swap.incoming === worker) swap.held.push(safe);
				else if (current) this.#options.show(safe);
				return;
			}
			case "snapshot":
				if (!current) return;
				this.#snapshot = message.data;
				for (const resolve of this.#snapshotWaiters.splice(0)) resolve();
				return;
			case "ready":
				mark("worker ready");
				if (swap.kind === "swapping" && swap.incoming === worker) this.#activate(worker, swap.held);
				return;
			case "log": {
				const timing = /^timeline lockdown=(\d+) evaluation=(\d+) ends=(\d+),(\d+)$/.exec(message.text);
				if (message.level === "info" && timing) {
					note("worker lockdown", Number(timing[1]));
					note("worker evaluation", Number(timing[2]));
					mark("worker locked down", Number(timing[3]) - performance.timeOrigin);
					mark("worker evaluated", Number(timing[4]) - performance.timeOrigin);
					return;
				}
				this.#options.onMessage(worker, message, current);
				return;
			}
			case "reload":
				if (current) void this.reload(false);
				return;
			case "error":
				// A UI that fails before it is ready does not take over: the one on screen stays.
				if (swap.kind === "swapping" && swap.incoming === worker) this.#abandonSwap();
				this.#options.onMessage(worker, message, current);
				return;
			case "pong":
				return;
			default:
				this.#options.onMessage(worker, message, current);
		}
	}

	/** Makes the incoming worker the one on screen, then retires the old one. */
	#activate(worker: GuestWorker, held: readonly string[]): void {
		const old = this.#active;
		this.#swap = { kind: "steady" };
		this.#active = worker;
		if (old) this.#options.onGone(old);
		old?.sandbox.terminate();
		this.#options.onReplaced();
		for (const chunk of held) this.#options.show(chunk);
	}

	#ended(worker: GuestWorker, why: WorkerEnd, detail: string): void {
		this.#options.onGone(worker);
		if (this.#stopped) return;
		if (this.#swap.kind === "swapping" && this.#swap.incoming === worker) {
			if (why !== "exited" && why !== "terminated") this.#options.problem(`the UI worker ended (${why}: ${detail})`);
			this.#abandonSwap();
			return;
		}
		if (why === "exited" || why === "terminated") return;
		this.#options.problem(`the UI worker ended (${why}: ${detail})`);
		if (worker !== this.#active) return;
		const now = this.#options.clock.now();
		this.#restarts.push(now);
		while (this.#restarts.length && now - this.#restarts[0]! > 60_000) this.#restarts.shift();
		if (this.#restarts.length > RESTARTS_PER_MINUTE) {
			this.#options.problem("the UI kept failing; p2 stopped it");
			return this.#options.onGiveUp();
		}
		this.#options.onReplaced();
		this.#active = this.#spawn("restart");
	}

	/**
	 * The UI taking over failed before it was ready: it goes, and the one on screen draws on (in regular mode it
	 * stopped drawing when it handed over its snapshot).
	 */
	#abandonSwap(): void {
		const swap = this.#swap;
		if (swap.kind !== "swapping") return;
		this.#swap = { kind: "steady" };
		this.#options.onGone(swap.incoming);
		swap.incoming.sandbox.terminate();
		this.#active?.sandbox.post({ kind: "redraw" });
	}

	/**
	 * Asks the UI on screen for its snapshot, to hand over, and waits for it (a worker that does not answer
	 * keeps the last).
	 */
	#freshSnapshot(): Promise<void> {
		return new Promise((resolve) => {
			if (!this.#active) return resolve();
			this.#snapshotWaiters.push(resolve);
			this.#active.sandbox.post({ kind: "snapshotRequest", handover: true });
			this.#options.clock.setTimeout(resolve, SNAPSHOT_WAIT_MS);
		});
	}
}
