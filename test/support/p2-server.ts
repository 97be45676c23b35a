import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Provider, RetryPolicy } from "@earendil-works/pi-ai";
import type { AnyContract, InputOf, StateOf } from "../../src/protocol/contract.ts";
import { ObjectClient, type ObjectRef } from "../../src/protocol/object-client.ts";
import { DEVICE_TOKEN_HEADER, SOCKET_PATH } from "../../src/protocol/server-info.ts";
import type { ServerPlugin } from "../../src/server/plugin.ts";
import { defaultPlugins } from "../../src/server/plugins.ts";
import { type P2Server, startServer } from "../../src/server/server.ts";
import { type FakeOpenAI, startFakeOpenAI, writeFakeModelsJson } from "./fake-openai.ts";

export const FAST_RETRY: RetryPolicy = { enabled: true, maxRetries: 3, baseDelayMs: 20 };

export interface TestServer {
	readonly server: P2Server;
	readonly dataDir: string;
	readonly fake: FakeOpenAI;
	/** A client connected as this device's owner (loopback + device token). */
	connect(headers?: Record<string, string>): Promise<TestClient>;
	restart(): Promise<void>;
	stop(): Promise<void>;
}

export interface TestClient {
	readonly client: ObjectClient;
	readonly socket: WebSocket;
	/** Every raw frame the server sent, in order. */
	readonly frames: string[];
	open<C extends AnyContract>(contract: C, input: InputOf<C>): Promise<ObjectRef<C>>;
	/** Sends a raw text frame and resolves with the next answer (not a patch) the server sends back. */
	raw(text: string): Promise<unknown>;
	close(): void;
}

/** A temp dir removed after the test; the fake provider configured through models.json. */
export async function startTestServer(
	options: {
		retry?: RetryPolicy;
		env?: Record<string, string>;
		/** Extra model providers, given the fake endpoint's base URL. */
		providers?: (baseUrl: string) => readonly Provider[];
		/** The server's `settings.json`, written before it starts. */
		settings?: Record<string, unknown>;
		/** False: no models.json (the fake provider is not configured). */
		modelsJson?: boolean;
		/** The server's plugins, given the default list (tests: a plugin of the test's own beside them). */
		plugins?: (defaults: ServerPlugin[]) => ServerPlugin[];
	} = {},
) {
	const dataDir = mkdtempSync(join(tmpdir(), "p2-test-"));
	const fake = await startFakeOpenAI();
	if (options.modelsJson !== false) writeFakeModelsJson(dataDir, fake.baseUrl);
	if (options.settings) {
		writeFileSync(join(dataDir, "settings.json"), JSON.stringify(options.settings), { mode: 0o600 });
	}
	const boot = () =>
		startServer({
			dataDir,
			plugins: options.plugins ? options.plugins(defaultPlugins()) : defaultPlugins(),
			retry: options.retry ?? FAST_RETRY,
			env: options.env ?? {},
			...(options.providers ? { providers: options.providers(fake.baseUrl) } : {}),
		});
	let server = await boot();
	const clients: TestClient[] = [];
	const test: TestServer = {
		get server() {
			return server;
		},
		dataDir,
		fake,
		async connect(headers) {
			const c = await connectClient(server, headers ?? { [DEVICE_TOKEN_HEADER]: server.deviceToken });
			clients.push(c);
			return c;
		},
		async restart() {
			for (const c of clients.splice(0)) c.close();
			await server.stop();
			server = await boot();
		},
		async stop() {
			for (const c of clients.splice(0)) c.close();
			await server.stop();
			await fake.stop();
			rmSync(dataDir, { recursive: true, force: true });
		},
	};
	return test;
}

export async function connectClient(server: P2Server, headers: Record<string, string>): Promise<TestClient> {
	const url = `${server.origin.replace(/^http/, "ws")}${SOCKET_PATH}`;
	const socket = new WebSocket(url, { headers } as unknown as string[]);
	const client = new ObjectClient();
	const frames: string[] = [];
	const waiters: ((frame: unknown) => void)[] = [];
	socket.addEventListener("message", (event) => {
		const text = String(event.data);
		frames.push(text);
		const frame = JSON.parse(text);
		// Patches and the greeting are not answers to a request.
		if (frame.t !== "patch" && frame.t !== "hello") waiters.shift()?.(frame);
		client.receive(text);
	});
	await new Promise<void>((resolve, reject) => {
		socket.addEventListener("open", () => resolve(), { once: true });
		socket.addEventListener("error", () => reject(new Error("socket failed")), { once: true });
		socket.addEventListener("close", (e) => reject(new Error(`socket closed: ${e.code} ${e.reason}`)), { once: true });
	});
	client.attach((text) => socket.send(text));
	socket.addEventListener("close", () => client.detach());
	return {
		client,
		socket,
		frames,
		async open(contract, input) {
			const ref = client.open(contract, input);
			await ref.ready;
			return ref;
		},
		raw(text) {
			return new Promise((resolve) => {
				waiters.push(resolve);
				socket.send(text);
			});
		},
		close() {
			socket.close();
		},
	};
}

/** Resolves when the ref's state satisfies `predicate` (checked on every change); rejects after `ms`. */
export function waitForState<C extends AnyContract>(
	ref: ObjectRef<C>,
	predicate: (state: StateOf<C>) => boolean,
	ms = 10_000,
): Promise<StateOf<C>> {
	return new Promise((resolve, reject) => {
		const check = () => {
			const state = ref.state;
			if (state !== undefined && predicate(state)) {
				clearTimeout(timer);
				off();
				resolve(state);
			}
		};
		const off = ref.onChange(check);
		const timer = setTimeout(() => {
			off();
			reject(new Error(`state never matched; last: ${JSON.stringify(ref.state)?.slice(0, 2000)}`));
		}, ms);
		check();
	});
}
