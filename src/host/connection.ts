import type { ConnectionState } from "../protocol/channel.ts";
import { MAX_SERVER_FRAME_CHARS } from "../protocol/channel-kinds.ts";
import { BUNDLE_PATH, SOCKET_PATH } from "../protocol/server-info.ts";
import { mebibytes } from "../protocol/sizes.ts";
import { trustedFetch } from "./trusted-http.ts";

export interface ConnectionOptions {
	origin(): string;
	/** The launcher's credentials for this origin (device token or cookie): headers, read at every connect. */
	credentials(): Record<string, string>;
	onFrame(text: string): void;
	onState(state: ConnectionState): void;
	/** The server refused our credentials (confirmed with the launcher's own check): signed out. */
	onSignedOut(): void;
	/** Before a reconnect: a chance to find (or start) this device's server again. */
	beforeReconnect?(): Promise<void>;
	/** The server broke the protocol; the connection was closed and is tried again after `retryMs`. */
	onFault?(fault: ServerFault): void;
	/** The largest frame relayed (the UI takes no larger). */
	readonly maxFrameChars?: number;
	/** The wait after a first fault, doubled after each further one (up to a minute). */
	readonly faultBackoffMs?: number;
}

/** What the server did wrong, in the launcher's own words, and when the launcher connects again. */
export interface ServerFault {
	readonly text: string;
	readonly retryMs: number;
}

const MAX_BACKOFF_MS = 5000;
/** After a fault the wait starts here and doubles with every fault, up to a minute. */
const FAULT_BACKOFF_MS = 5000;
const MAX_FAULT_BACKOFF_MS = 60_000;
/** A connection open this long without a fault forgives the earlier ones. */
const FORGIVE_AFTER_MS = 60_000;
/** The WebSocket close code for a message too big to take (RFC 6455). */
const TOO_BIG = 1009;

/**
 * The launcher's WebSocket to the server. It alone holds the credentials; frames are relayed to and from the
 * worker as text. Reconnects with backoff; a refusal is confirmed with HEAD on the bundle route before the
 * launcher says the person was signed out. A frame larger than the UI takes is never relayed: the socket is
 * closed, and the next connection waits longer after each such fault.
 */
export class ServerConnection {
	#options: ConnectionOptions;
	#socket: WebSocket | undefined;
	#closed = false;
	#backoff = 250;
	#timer: ReturnType<typeof setTimeout> | undefined;
	/** Faults in a row: each makes the next wait longer. */
	#faults = 0;

	constructor(options: ConnectionOptions) {
		this.#options = options;
	}

	connect(): void {
		if (this.#closed) return;
		this.#options.onState("connecting");
		const url = `${this.#options.origin().replace(/^http/, "ws")}${SOCKET_PATH}`;
		const socket = new WebSocket(url, {
			headers: { origin: this.#options.origin(), ...this.#options.credentials() },
		} as unknown as string[]);
		this.#socket = socket;
		let openedAt: number | undefined;
		let fault: string | undefined;
		socket.addEventListener("open", () => {
			openedAt = performance.now();
			this.#backoff = 250;
			this.#options.onState("open");
		});
		socket.addEventListener("message", (event) => {
			if (typeof event.data !== "string" || fault !== undefined) return;
			const max = this.#options.maxFrameChars ?? MAX_SERVER_FRAME_CHARS;
			if (event.data.length <= max) return this.#options.onFrame(event.data);
			fault = `The server sent a frame of ${mebibytes(event.data.length)}; p2 takes at most ${mebibytes(max)}.`;
			socket.close(TOO_BIG, "frame too large");
		});
		socket.addEventListener("close", () => {
			if (this.#socket !== socket) return;
			this.#socket = undefined;
			if (this.#closed) return;
			this.#options.onState("closed");
			if (fault !== undefined) return this.#retryAfterFault(fault);
			if (openedAt !== undefined && performance.now() - openedAt >= FORGIVE_AFTER_MS) this.#faults = 0;
			void this.#retry(openedAt !== undefined);
		});
	}

	send(text: string): boolean {
		if (this.#socket?.readyState !== WebSocket.OPEN) return false;
		this.#socket.send(text);
		return true;
	}

	/** Drops the socket and connects again at once (the server forgets every object of the old one). */
	reconnect(): void {
		if (this.#timer) clearTimeout(this.#timer);
		const socket = this.#socket;
		this.#socket = undefined;
		socket?.close();
		this.#options.onState("closed");
		this.connect();
	}

	close(): void {
		this.#closed = true;
		if (this.#timer) clearTimeout(this.#timer);
		this.#socket?.close();
		this.#socket = undefined;
	}

	async #retry(wasOpen: boolean): Promise<void> {
		if (!wasOpen && (await this.#refused())) return this.#options.onSignedOut();
		// After faults, a server that then fails to connect does not get a shorter wait than the last.
		const wait = this.#faults > 0 ? this.#faultWait() : this.#backoff;
		this.#backoff = Math.min(MAX_BACKOFF_MS, this.#backoff * 2);
		this.#schedule(wait);
	}

	#retryAfterFault(text: string): void {
		this.#faults += 1;
		const wait = this.#faultWait();
		this.#options.onFault?.({ text, retryMs: wait });
		this.#schedule(wait);
	}

	#faultWait(): number {
		const first = this.#options.faultBackoffMs ?? FAULT_BACKOFF_MS;
		return Math.min(MAX_FAULT_BACKOFF_MS, first * 2 ** Math.min(this.#faults - 1, 16));
	}

	#schedule(wait: number): void {
		if (this.#closed) return;
		this.#timer = setTimeout(async () => {
			await this.#options.beforeReconnect?.().catch(() => {});
			this.connect();
		}, wait);
	}

	async #refused(): Promise<boolean> {
		try {
			const check = await trustedFetch({
				origin: this.#options.origin(),
				path: BUNDLE_PATH,
				method: "HEAD",
				headers: this.#options.credentials(),
				timeoutMs: 5000,
			});
			return check.status === 401 || check.status === 403;
		} catch {
			return false;
		}
	}
}
