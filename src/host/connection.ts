import type { ConnectionState } from "../protocol/channel.ts";
import { BUNDLE_PATH, SOCKET_PATH } from "../protocol/server-info.ts";
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
}

const MAX_BACKOFF_MS = 5000;

/**
 * The launcher's WebSocket to the server. It alone holds the credentials; frames are relayed to and from the
 * worker as text. Reconnects with backoff; a refusal is confirmed with HEAD on the bundle route before the
 * launcher says the person was signed out.
 */
export class ServerConnection {
	#options: ConnectionOptions;
	#socket: WebSocket | undefined;
	#closed = false;
	#backoff = 250;
	#timer: ReturnType<typeof setTimeout> | undefined;

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
		let opened = false;
		socket.addEventListener("open", () => {
			opened = true;
			this.#backoff = 250;
			this.#options.onState("open");
		});
		socket.addEventListener("message", (event) => {
			if (typeof event.data === "string") this.#options.onFrame(event.data);
		});
		socket.addEventListener("close", () => {
			if (this.#socket !== socket) return;
			this.#socket = undefined;
			if (this.#closed) return;
			this.#options.onState("closed");
			void this.#retry(opened);
		});
	}

	send(text: string): boolean {
		if (this.#socket?.readyState !== WebSocket.OPEN) return false;
		this.#socket.send(text);
		return true;
	}

	/** Drops the socket and connects again at once (the server forgets every object of the old one). */
	reconnect(): void {
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
		const wait = this.#backoff;
		this.#backoff = Math.min(MAX_BACKOFF_MS, this.#backoff * 2);
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
