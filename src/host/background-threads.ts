/**
 * Keeps the JavaScript engine's background threads from delaying a keystroke. On two cores a key wakes the UI
 * worker while JavaScriptCore's compiler threads are still compiling what the last keys made hot (a tenth of
 * a millisecond to 16 ms each, for minutes into a session); Linux then often queues the worker behind the
 * compiler on one core while the other core is idle, and the key reaches the screen milliseconds late
 * (observed with `perf sched`). At the lowest priority those threads take any idle core but yield at once to
 * the launcher's and the worker's threads. Only their priority changes: they compile the same code.
 *
 * The engine ends a compiler thread after some seconds without work and starts a new one (at normal priority)
 * when work comes, so the threads are looked at again now and then. Linux only (`/proc/self/task`; a thread's
 * id is a process id to `setpriority`); elsewhere nothing happens.
 */
import { readdirSync, readFileSync } from "node:fs";
import { setPriority } from "node:os";

/** JavaScriptCore's JIT compiler threads and the allocator's scavenger, by the names they give themselves. */
const BACKGROUND_NAME = /^(?:JITWorker|mi-scavenger)/;
/** The lowest priority: the thread runs when a core has nothing else to do. */
export const BACKGROUND_NICE = 19;
const LOOK_AGAIN_MS = 500;

/** This process's threads, as the kernel lists them. */
export interface ThreadTable {
	/** The ids of the threads alive now; throws when they cannot be listed. */
	ids(): string[];
	/** A thread's name, or undefined when it has ended. */
	name(id: string): string | undefined;
	/** Sets a thread's nice value; throws when it has ended. */
	lower(id: string, nice: number): void;
}

export const procThreads: ThreadTable = {
	ids: () => readdirSync("/proc/self/task"),
	name: (id) => {
		try {
			return readFileSync(`/proc/self/task/${id}/comm`, "utf8").trim();
		} catch {
			return undefined;
		}
	},
	lower: (id, nice) => setPriority(Number(id), nice),
};

/**
 * Lowers each background thread once. A thread names itself as it starts (until then it carries its
 * creator's name), so another thread is read twice before it is passed over while it lives.
 */
export class BackgroundThreads {
	readonly #table: ThreadTable;
	/** Thread id → looks so far: lowered threads and threads read twice are not read again. */
	#looks = new Map<string, number>();

	constructor(table: ThreadTable = procThreads) {
		this.#table = table;
	}

	/** Looks at the threads started since the last look; returns how many it lowered. */
	lowerNew(): number {
		let ids: string[];
		try {
			ids = this.#table.ids();
		} catch {
			return 0;
		}
		const looks = new Map<string, number>();
		let lowered = 0;
		for (const id of ids) {
			const before = this.#looks.get(id) ?? 0;
			if (before >= 2) {
				looks.set(id, before);
				continue;
			}
			const name = this.#table.name(id);
			if (name === undefined) continue;
			if (!BACKGROUND_NAME.test(name)) {
				looks.set(id, before + 1);
				continue;
			}
			looks.set(id, 2);
			try {
				this.#table.lower(id, BACKGROUND_NICE);
				lowered++;
			} catch {
				// The thread ended between the listing and now.
			}
		}
		// Ended threads are forgotten, so an id the kernel hands out again is looked at again.
		this.#looks = looks;
		return lowered;
	}
}

/**
 * Starts keeping this process's background threads low (Linux); returns how to stop. The first look (~1 ms)
 * comes after the caller's turn, off the path of the key that started it.
 */
export function keepBackgroundThreadsLow(platform: NodeJS.Platform = process.platform): () => void {
	if (platform !== "linux") return () => {};
	const threads = new BackgroundThreads();
	const first = setTimeout(() => threads.lowerNew(), 0);
	const timer = setInterval(() => threads.lowerNew(), LOOK_AGAIN_MS);
	first.unref?.();
	timer.unref?.();
	return () => {
		clearTimeout(first);
		clearInterval(timer);
	};
}
