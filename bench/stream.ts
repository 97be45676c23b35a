/**
 * Streaming cost of the object protocol (issue 2): bytes per streamed token per client at 1/10/100
 * subscribers, added latency from provider chunk to client frame, and opening a 10,000-entry conversation.
 * Prints JSON. Run: bun bench/stream.ts
 */
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chatContract } from "../src/plugins/chat/contract.ts";
import { ObjectClient } from "../src/protocol/object-client.ts";
import { DEVICE_TOKEN_HEADER, SOCKET_PATH } from "../src/protocol/server-info.ts";
import { defaultPlugins } from "../src/server/plugins.ts";
import { type P2Server, startServer } from "../src/server/server.ts";

const TOKENS = 400;
const CHUNK_GAP_MS = 1;

/** A provider that streams TOKENS numbered tokens and remembers when it wrote each one. */
function startProvider() {
	const sentAt: number[] = [];
	const encoder = new TextEncoder();
	const line = (obj: unknown) => encoder.encode(`data: ${JSON.stringify(obj)}\n\n`);
	const server = Bun.serve({
		hostname: "127.0.0.1",
		port: 0,
		fetch() {
			sentAt.length = 0;
			const stream = new ReadableStream({
				async start(controller) {
					for (let i = 0; i < TOKENS; i++) {
						sentAt[i] = performance.now();
						controller.enqueue(line({ id: "b", choices: [{ index: 0, delta: { content: ` w${i}` } }] }));
						await Bun.sleep(CHUNK_GAP_MS);
					}
					controller.enqueue(line({ id: "b", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }));
					controller.enqueue(
						line({
							id: "b",
							choices: [],
							usage: { prompt_tokens: 10, completion_tokens: TOKENS, total_tokens: TOKENS + 10 },
						}),
					);
					controller.enqueue(encoder.encode("data: [DONE]\n\n"));
					controller.close();
				},
			});
			return new Response(stream, { headers: { "content-type": "text/event-stream" } });
		},
	});
	return { url: `http://127.0.0.1:${server.port}/v1`, sentAt, stop: () => server.stop(true) };
}

interface BenchClient {
	socket: WebSocket;
	client: ObjectClient;
	bytes: number;
	recvAt: Map<number, number>;
}

/**
 * Only the first client of a run keeps a replica; the others record arrival times and bytes, so the work of
 * 100 replicas in this one process does not pass for server latency.
 */
async function connect(server: P2Server, replica = true): Promise<BenchClient> {
	const socket = new WebSocket(`${server.origin.replace(/^http/, "ws")}${SOCKET_PATH}`, {
		headers: { [DEVICE_TOKEN_HEADER]: server.deviceToken },
	} as unknown as string[]);
	const client = new ObjectClient();
	const c: BenchClient = { socket, client, bytes: 0, recvAt: new Map() };
	socket.addEventListener("message", (event) => {
		const now = performance.now();
		const text = String(event.data);
		if (text.startsWith('{"t":"patch"')) {
			c.bytes += Buffer.byteLength(text);
			for (const m of text.matchAll(/ w(\d+)/g)) if (!c.recvAt.has(Number(m[1]))) c.recvAt.set(Number(m[1]), now);
			if (!replica) return;
		}
		client.receive(text);
	});
	await new Promise((resolve) => socket.addEventListener("open", resolve, { once: true }));
	client.attach((text) => socket.send(text));
	return c;
}

function percentile(values: number[], p: number): number {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

const round = (n: number, digits = 3) => Math.round(n * 10 ** digits) / 10 ** digits;

async function streamRun(server: P2Server, provider: ReturnType<typeof startProvider>, session: string, n: number) {
	const clients = await Promise.all(Array.from({ length: n }, (_, i) => connect(server, i === 0)));
	const refs = clients.map((c) => c.client.open(chatContract, { session, conversation: "main" }));
	await Promise.all(refs.map((r) => r.ready));
	for (const c of clients) c.bytes = 0;
	const done = new Promise<void>((resolve) => {
		let started = false;
		const off = refs[0]!.onChange((s) => {
			if (s.live) started = true;
			if (started && s.live === null) {
				off();
				resolve();
			}
		});
	});
	await refs[0]!.call("send", { text: "stream please", mode: "steer", requestId: crypto.randomUUID() });
	await done;
	const latencies: number[] = [];
	for (const c of clients) {
		for (const [i, at] of c.recvAt) {
			const sent = provider.sentAt[i];
			if (sent !== undefined) latencies.push(at - sent);
		}
	}
	const bytesPerToken = clients.reduce((sum, c) => sum + c.bytes, 0) / clients.length / TOKENS;
	for (const c of clients) c.socket.close();
	return {
		clients: n,
		bytesPerTokenPerClient: round(bytesPerToken, 1),
		latencyMs: { p50: round(percentile(latencies, 50)), p99: round(percentile(latencies, 99)) },
	};
}

async function main() {
	const dataDir = mkdtempSync(join(tmpdir(), "p2-bench-"));
	const cwd = realpathSync(mkdtempSync(join(tmpdir(), "p2-bench-cwd-")));
	const provider = startProvider();
	writeFileSync(
		join(dataDir, "models.json"),
		JSON.stringify({
			providers: {
				bench: {
					baseUrl: provider.url,
					api: "openai-completions",
					apiKey: "bench",
					models: [{ id: "bench-model", name: "Bench", contextWindow: 128000, maxTokens: 4096 }],
				},
			},
		}),
	);
	const server = await startServer({ dataDir, plugins: defaultPlugins(), env: {} });
	const { catalog, stores } = server.ctx;
	const results: Record<string, unknown> = {};

	const streaming = [];
	for (const n of [1, 10, 100]) {
		const session = catalog.create({ cwd }).id;
		streaming.push(await streamRun(server, provider, session, n));
	}
	results.streaming = streaming;

	// The same stream into a conversation that already has 2,000 entries: bytes per token must not grow.
	const long = catalog.create({ cwd }).id;
	stores.get(long).appendMany("main", fakeHistory(2000));
	results.streamingWithLongHistory = await streamRun(server, provider, long, 10);

	// First window of a 10,000-entry conversation: time and bytes from open to snapshot on a fresh socket.
	const big = catalog.create({ cwd }).id;
	stores.get(big).appendMany("main", fakeHistory(10_000));
	stores.closeStore(big);
	const heapBefore = process.memoryUsage().heapUsed;
	const c = await connect(server);
	let snapshotBytes = 0;
	c.socket.addEventListener("message", (e) => {
		const text = String(e.data);
		if (text.startsWith('{"t":"snapshot"')) snapshotBytes = Buffer.byteLength(text);
	});
	const t0 = performance.now();
	const ref = c.client.open(chatContract, { session: big, conversation: "main" });
	await ref.ready;
	const firstWindowMs = performance.now() - t0;
	Bun.gc(true);
	results.firstWindow10k = {
		ms: round(firstWindowMs, 1),
		kib: round(snapshotBytes / 1024, 1),
		entries: ref.state?.entries.length,
		heapGrowthMiB: round((process.memoryUsage().heapUsed - heapBefore) / 1024 / 1024, 2),
	};
	c.socket.close();
	results.targets = {
		bytesPerTokenPerClient: "< 200",
		latencyP99At100Ms: "< 5",
		firstWindowMs: "< 100",
		firstWindowKiB: "< 256",
	};
	console.log(JSON.stringify(results, null, 2));
	await server.stop();
	provider.stop();
	rmSync(dataDir, { recursive: true, force: true });
	rmSync(cwd, { recursive: true, force: true });
}

function fakeHistory(n: number) {
	const author = { id: "device", name: "owner", role: "deviceOwner" };
	return Array.from({ length: n }, (_, i) =>
		i % 2 === 0
			? { kind: "user", data: { kind: "user", text: `Question number ${i}: how does part ${i} work?` }, author }
			: {
					kind: "assistant",
					data: {
						kind: "assistant",
						message: {
							role: "assistant",
							content: [{ type: "text", text: `Answer ${i}. ${"It works like this, in some detail. ".repeat(6)}` }],
							api: "openai-completions",
							provider: "bench",
							model: "bench-model",
							usage: { input: 100, output: 50, cacheRead: 0, cacheWrite: 0, totalTokens: 150, cost: { total: 0 } },
							stopReason: "stop",
							timestamp: Date.now(),
						},
					},
				},
	);
}

await main();
