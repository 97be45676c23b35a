/**
 * Byte relays over WebSockets, the plugins' (a port forwarded to the visitor's machine): a path, and who may
 * open one. The core checks the Host header, the principal and the Origin before a relay opens, as for the
 * object socket; frames are binary and go to the relay as they come.
 */
import type { Principal } from "./objects/principal.ts";

/** The relay's far end as the server sees it: the WebSocket to the launcher. */
export interface RelayPeer {
	send(bytes: Uint8Array): void;
	close(): void;
}

export interface Relay {
	open(peer: RelayPeer): void;
	data(bytes: Uint8Array): void;
	close(): void;
}

/** A relay for this principal and request, or a refusal (its status and words). */
export type RelayAccept = (principal: Principal, url: URL) => Relay | { readonly refuse: number; readonly why: string };

export class Relays {
	readonly #relays = new Map<string, RelayAccept>();

	add(path: string, accept: RelayAccept): void {
		if (!path.startsWith("/")) throw new Error(`relay ${path} does not start with /`);
		if (this.#relays.has(path)) throw new Error(`relay ${path} is added twice`);
		this.#relays.set(path, accept);
	}

	entries(): [string, RelayAccept][] {
		return [...this.#relays];
	}
}
