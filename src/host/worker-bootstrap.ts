/**
 * Runs first in the guest worker, before any server code. It locks the realm down with Hardened JavaScript
 * (`ses`), evaluates the server's bundle in a Compartment whose only endowments are hardened, and connects
 * it to the launcher through one hardened host object. The bundle never sees `Bun`, `process`, `require`,
 * `fetch`, sockets, files, the environment, dynamic `import()` or the worker's own `postMessage`.
 */
// Hardened JavaScript refuses sloppy mode, and the executable compiles this entry as a CommonJS script.

import "ses";
import type { GuestEntry, GuestHost, LauncherMessage, StartData } from "../protocol/channel.ts";
import {
	LAUNCHER_MESSAGE_KINDS,
	MAX_IMAGE_BASE64_CHARS,
	MAX_OUTPUT_CHARS,
	WORKER_FLOOD_LIMITS,
	WORKER_MESSAGE_KINDS,
} from "../protocol/channel-kinds.ts";
import { installRegExpMethods } from "./regexp-methods.ts";

/** Room for a message's envelope around its largest field; an image's is its own. */
const MAX_MESSAGE_CHARS = MAX_OUTPUT_CHARS + 4096;
const MAX_IMAGE_MESSAGE_CHARS = MAX_IMAGE_BASE64_CHARS + 4096;

declare const self: {
	postMessage(message: unknown): void;
	addEventListener(type: "message", listener: (event: { data: unknown }) => void): void;
};

const post = self.postMessage.bind(self);
const heapSize: () => number = (() => {
	try {
		const jsc = require("bun:jsc") as { heapSize(): number };
		return () => jsc.heapSize();
	} catch {
		return () => 0;
	}
})();

function report(message: string): void {
	post({ kind: "error", message: message.slice(0, 4000) });
}

/** This second's share of the flood limits, taken by every message the guest posts. */
const flood = { second: -1, messages: 0, chars: 0, told: false };

/** Whether a guest message of `chars` fits this second's limits; the first one over is reported. */
function withinFloodLimits(chars: number): boolean {
	const second = Math.floor(performance.now() / 1000);
	if (second !== flood.second) {
		flood.second = second;
		flood.messages = 0;
		flood.chars = 0;
		flood.told = false;
	}
	if (flood.messages + 1 <= WORKER_FLOOD_LIMITS.messages && flood.chars + chars <= WORKER_FLOOD_LIMITS.chars) {
		flood.messages += 1;
		flood.chars += chars;
		return true;
	}
	if (!flood.told) {
		flood.told = true;
		report("the UI posted more than the worker lets through in a second; the rest was dropped");
	}
	return false;
}

/**
 * The text of an output message (a frame, posted at every render) read from the guest's object without running
 * its code or copying it through JSON: own data properties only, each read once. Anything else (a getter, an
 * inherited field, a text that is not a string) is undefined and takes the checked copy.
 */
function outputText(message: unknown): string | undefined {
	if (typeof message !== "object" || message === null) return undefined;
	if (Object.getOwnPropertyDescriptor(message, "kind")?.value !== "output") return undefined;
	const data = Object.getOwnPropertyDescriptor(message, "data")?.value;
	return typeof data === "string" && data.length <= MAX_OUTPUT_CHARS ? data : undefined;
}

/** Copies a guest value into plain data, so no getter, proxy or prototype of the guest's reaches us. */
function plain(value: unknown): unknown {
	return JSON.parse(JSON.stringify(value) ?? "null");
}

function endowments() {
	const { Segmenter } = Intl;
	// pi-tui builds an Intl.Segmenter at load: harden the prototypes its results come from too.
	const probe = new Segmenter("en", { granularity: "grapheme" }).segment("a");
	harden(Object.getPrototypeOf(probe));
	harden(Object.getPrototypeOf(probe[Symbol.iterator]()));
	const timer =
		<A extends unknown[]>(fn: (cb: () => void, ms?: number) => unknown) =>
		(cb: unknown, ms?: unknown, ...args: A) => {
			if (typeof cb !== "function") throw new TypeError("timers take a function");
			return fn(() => cb(...args), typeof ms === "number" ? ms : 0);
		};
	const random = () => {
		const buf = new Uint32Array(2);
		crypto.getRandomValues(buf);
		return (buf[0]! * 2 ** 21 + (buf[1]! >>> 11)) / 2 ** 53;
	};
	const mathWithRandom: Record<string, unknown> = Object.fromEntries(
		Object.getOwnPropertyNames(Math).map((k) => [k, (Math as unknown as Record<string, unknown>)[k]]),
	);
	mathWithRandom.random = random;
	const log =
		(level: "info" | "warn" | "error") =>
		(...args: unknown[]) => {
			const text = args.map((a) => (typeof a === "string" ? a : safeString(a))).join(" ");
			post({ kind: "log", level, text: text.slice(0, 4000) });
		};
	return harden({
		Intl: { Segmenter, DateTimeFormat: Intl.DateTimeFormat, NumberFormat: Intl.NumberFormat },
		WeakRef,
		FinalizationRegistry,
		// Standard, frozen by lockdown, but not put in a compartment's globals by this ses on Bun.
		Float32Array,
		Float64Array,
		TextEncoder,
		TextDecoder,
		structuredClone: (value: unknown) => structuredClone(value),
		Date,
		Math: mathWithRandom,
		setTimeout: timer(setTimeout),
		setInterval: timer(setInterval),
		clearTimeout: (id: unknown) => clearTimeout(id as never),
		clearInterval: (id: unknown) => clearInterval(id as never),
		queueMicrotask: (cb: unknown) => {
			if (typeof cb !== "function") throw new TypeError("queueMicrotask takes a function");
			queueMicrotask(() => cb());
		},
		performance: { now: () => performance.now() },
		console: { log: log("info"), info: log("info"), debug: log("info"), warn: log("warn"), error: log("error") },
	});
}

function safeString(value: unknown): string {
	try {
		return String(value);
	} catch {
		return "[unprintable]";
	}
}

// Errors of the guest's asynchronous code are reported, not fatal: the launcher decides what to do.
process.on("unhandledRejection", (reason) => report(`unhandled rejection in the guest: ${safeString(reason)}`));
process.on("uncaughtException", (error) => report(`uncaught exception in the guest: ${safeString(error)}`));

let handler: ((message: LauncherMessage) => void) | undefined;
/** `load` evaluates the bundle, `init` starts it; each happens once, in that order. */
let phase: "empty" | { loaded: GuestEntry } | "started" | "failed" = "empty";

// The realm is locked down as soon as the worker loads, while the launcher is still fetching the bundle. Its
// RegExp methods are replaced first: frozen, the built-ins would take their slowest path on every call.
installRegExpMethods();
let lockdownFailure: string | undefined;
const lockdownStart = performance.now();
try {
	lockdown({
		errorTaming: "safe",
		stackFiltering: "concise",
		overrideTaming: "severe",
		reporting: "none",
		// The worker's own console is left as it is: the guest never reaches it (its compartment's `console` is the
		// endowment above, which posts to the launcher). Wrapping it cost about half of lockdown: looking at Bun's
		// console loads Node's stream and util modules.
		consoleTaming: "unsafe",
	});
} catch (error) {
	lockdownFailure = safeString(error);
}
/** How long the worker's start took and when each step ended, told to the launcher (its start-up timeline). */
const clock = () => Math.round(performance.timeOrigin + performance.now());
const timings = {
	lockdownMs: Math.round(performance.now() - lockdownStart),
	evaluationMs: 0,
	lockdownEnd: clock(),
	evaluationEnd: 0,
};

function load(bundle: string): GuestEntry {
	if (lockdownFailure !== undefined) throw new Error(`lockdown failed: ${lockdownFailure}`);
	const compartment = new Compartment({ globals: endowments(), __options__: true });
	const evaluationStart = performance.now();
	compartment.evaluate(bundle);
	timings.evaluationMs = Math.round(performance.now() - evaluationStart);
	timings.evaluationEnd = clock();
	const loaded = compartment.globalThis.p2Guest as GuestEntry | undefined;
	if (!loaded || typeof loaded.start !== "function") throw new Error("the bundle did not define p2Guest.start");
	return loaded;
}

function start(entry: GuestEntry, startData: StartData): void {
	const host: GuestHost = harden({
		// The launcher validates every message against the full schema; this refuses the obvious at once.
		post(message: unknown) {
			const output = outputText(message);
			if (output !== undefined) {
				if (withinFloodLimits(output.length)) post({ kind: "output", data: output });
				return;
			}
			let text: string | undefined;
			try {
				text = JSON.stringify(message);
			} catch {
				throw new TypeError("not a plain message");
			}
			if (text === undefined || text.length > MAX_IMAGE_MESSAGE_CHARS) {
				throw new TypeError("not a worker message: too large");
			}
			const copy = JSON.parse(text) as { kind?: unknown } | null;
			if (!copy || typeof copy.kind !== "string" || !WORKER_MESSAGE_KINDS.includes(copy.kind)) {
				throw new TypeError("not a worker message: unknown kind");
			}
			if (copy.kind !== "image" && text.length > MAX_MESSAGE_CHARS)
				throw new TypeError("not a worker message: too large");
			if (withinFloodLimits(text.length)) post(copy);
		},
		onMessage(next: unknown) {
			if (typeof next !== "function") throw new TypeError("onMessage takes a function");
			handler = next as (message: LauncherMessage) => void;
		},
		start: harden(plain(startData) as StartData),
	});
	post({
		kind: "log",
		level: "info",
		text: `timeline lockdown=${timings.lockdownMs} evaluation=${timings.evaluationMs} ends=${timings.lockdownEnd},${timings.evaluationEnd}`,
	});
	entry.start(host);
}

self.addEventListener("message", (event) => {
	// The launcher is the trusted side of this channel; its messages are checked for their kind only.
	const message = event.data as LauncherMessage;
	if (!message || typeof message !== "object" || !LAUNCHER_MESSAGE_KINDS.includes(message.kind)) {
		return report("bootstrap: bad launcher message");
	}
	if (message.kind === "ping") return post({ kind: "pong", n: message.n, heapBytes: heapSize() });
	if (message.kind === "load") {
		if (phase !== "empty") return report("bootstrap: load twice");
		try {
			phase = { loaded: load(message.bundle) };
		} catch (error) {
			phase = "failed";
			report(`the guest bundle failed to load: ${safeString(error)}`);
		}
		return;
	}
	if (message.kind === "init") {
		if (typeof phase === "string") return report(`bootstrap: init when ${phase}`);
		const { loaded } = phase;
		phase = "started";
		try {
			start(loaded, message.start);
		} catch (error) {
			report(`the guest bundle failed to start: ${safeString(error)}`);
		}
		return;
	}
	try {
		handler?.(harden(plain(message)) as LauncherMessage);
	} catch (error) {
		report(`the guest failed on ${message.kind}: ${safeString(error)}`);
	}
});
