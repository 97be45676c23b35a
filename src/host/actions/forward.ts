/**
 * "Open on this computer" (the ports panel's action): a port of the server's machine, listened for on this computer's loopback
 * only, after the person's yes. Each local connection is relayed to the server over a WebSocket with the
 * launcher's own credentials; every forward closes when p2 exits.
 */
import type { Socket, TCPSocketListener } from "bun";
import type { WorkerMessage } from "../../protocol/channel.ts";
import type { ActionContext, Answer } from "./context.ts";

/** The forwards open now, by their local port. */
const forwards = new Map<number, TCPSocketListener<unknown>>();

/** Ends every forward (p2 exits). */
export function closeForwards(): void {
	for (const listener of forwards.values()) listener.stop(true);
	forwards.clear();
}

/** Whether `port` of this computer's loopback is a forward the person opened (and has not closed). */
export function isForwardedPort(port: number): boolean {
	return forwards.has(port);
}

/** Ends the forward listening on local `port`, with the connections it carries; false if there is none. */
function closeForward(port: number): boolean {
	const listener = forwards.get(port);
	if (!listener) return false;
	listener.stop(true);
	forwards.delete(port);
	return true;
}

/** A loopback listener on `port` if it is free here, else on any free port. */
function listen(port: number, open: (socket: Socket<Conn>) => void, handlers: Handlers): TCPSocketListener<Conn> {
	const socket = { ...handlers, open };
	try {
		return Bun.listen<Conn>({ hostname: "127.0.0.1", port, socket });
	} catch {
		return Bun.listen<Conn>({ hostname: "127.0.0.1", port: 0, socket });
	}
}

interface Conn {
	relay?: WebSocket;
	/** Bytes typed before the relay opened. */
	early: Uint8Array<ArrayBuffer>[];
	/** What the local socket did not take yet. */
	unwritten: Uint8Array[];
}

type Handlers = {
	data(socket: Socket<Conn>, bytes: Buffer): void;
	drain(socket: Socket<Conn>): void;
	close(socket: Socket<Conn>): void;
	error(socket: Socket<Conn>): void;
};

function write(socket: Socket<Conn>, bytes: Uint8Array): void {
	const conn = socket.data;
	if (conn.unwritten.length) {
		conn.unwritten.push(bytes);
		return;
	}
	const n = socket.write(bytes);
	if (n < bytes.length) conn.unwritten.push(bytes.subarray(Math.max(0, n)));
}

const handlers: Handlers = {
	data(socket, bytes) {
		const relay = socket.data.relay;
		if (relay?.readyState === WebSocket.OPEN) relay.send(new Uint8Array(bytes));
		else socket.data.early.push(new Uint8Array(bytes));
	},
	drain(socket) {
		const conn = socket.data;
		while (conn.unwritten.length) {
			const bytes = conn.unwritten[0] as Uint8Array;
			const n = socket.write(bytes);
			if (n < bytes.length) {
				conn.unwritten[0] = bytes.subarray(Math.max(0, n));
				return;
			}
			conn.unwritten.shift();
		}
	},
	close(socket) {
		socket.data.relay?.close();
	},
	error(socket) {
		socket.data.relay?.close();
	},
};

export async function forwardRequest<W>(
	ctx: ActionContext<W>,
	payload: Extract<WorkerMessage, { action: "forward" }>["payload"],
): Promise<Answer> {
	if (Object.hasOwn(payload, "close")) {
		const { close } = payload as { close: number };
		return closeForward(close) ? { ok: true } : { ok: false, error: "no forward listens there" };
	}
	const { host, worker } = ctx;
	const session = host.session(worker);
	const relay = host.openRelay;
	if (!session || !relay) return { ok: false, error: "no session is open" };
	const { port } = payload as { port: number };
	let approved = false;
	// Bound before the question, so it names the exact address; nothing is let in before the yes.
	const listener = listen(
		port,
		(socket) => {
			socket.data = { early: [], unwritten: [] };
			if (!approved) return void socket.end();
			const ws = relay(`/ports/relay?session=${encodeURIComponent(session)}&port=${port}`);
			ws.binaryType = "arraybuffer";
			socket.data.relay = ws;
			ws.addEventListener("open", () => {
				for (const bytes of socket.data.early.splice(0)) ws.send(bytes);
			});
			ws.addEventListener("message", (e) => {
				const data = e.data;
				write(socket, typeof data === "string" ? new TextEncoder().encode(data) : new Uint8Array(data as ArrayBuffer));
			});
			ws.addEventListener("close", () => socket.end());
		},
		handlers,
	);
	const address = `127.0.0.1:${listener.port}`;
	const decision = await ctx.ask(
		{
			action: "Open a port of the session's machine on this computer (the UI asked)",
			facts: [
				`From: port ${port} where the open session's tools run (the machine of the server at ${host.origin()}, or one it reaches over SSH)`,
				`To: ${address} on this computer (loopback: nothing else can reach it)`,
				"Closed when p2 exits or you close it in /ports.",
			],
			preview: { kind: "none" },
			offerNever: true,
		},
		session,
	);
	if (decision !== "yes") {
		listener.stop(true);
		return { ok: false, error: decision };
	}
	approved = true;
	forwards.set(listener.port, listener as TCPSocketListener<unknown>);
	return { ok: true, forwarded: address };
}
