/**
 * Subagents (issue 22): the server's added latency per streamed token, from the provider's write to a
 * watching client's frame, with 5 subagents streaming at once beside one conversation streaming alone.
 * Prints JSON. Run: bun bench/subagents.ts
 */
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chatContract } from "../src/plugins/chat/contract.ts";
import { conversationsContract } from "../src/plugins/subagents/contract.ts";
import { ObjectClient } from "../src/protocol/object-client.ts";
import { DEVICE_TOKEN_HEADER, SOCKET_PATH } from "../src/protocol/server-info.ts";
import { defaultPlugins } from "../src/server/plugins.ts";
import { type P2Server, startServer } from "../src/server/server.ts";

const TOKENS = 300;
const CHUNK_GAP_MS = 1;
const CHILDREN = 5;

interface Body {
	messages: { role: string; content: unknown }[];
}

/**
 * The provider: the parent's first request asks for CHILDREN subagents; its second (with their results)
 * answers "done"; every other request streams TOKENS tokens tagged with its stream (` s<k>w<i>`) once `go`
 * says so, and remembers when it wrote each one.
 */
function startProvider() {
	const sentAt = new Map<string, number>();
	let streams = 0;
	let release: () => void = () => {};
	let gate = Promise.resolve();
	const encoder = new TextEncoder();
	const line = (obj: unknown) => encoder.encode(`data: ${JSON.stringify(obj)}\n\n`);
	const end = (controller: ReadableStreamDefaultController) => {
		controller.enqueue(line({ id: "b", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }));
		controller.enqueue(
			line({ id: "b", choices: [], usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 } }),
		);
		controller.enqueue(encoder.encode("data: [DONE]\n\n"));
		controller.close();
	};
	const server = Bun.serve({
		hostname: "127.0.0.1",
		port: 0,
		idleTimeout: 0,
		async fetch(req) {
			const body = (await req.json()) as Body;
			const text = JSON.stringify(body.messages.at(-1)?.content ?? "");
			const parentFirst = text.includes("delegate please");
			const parentAfter = body.messages.some((m) => m.role === "tool");
			const stream = new ReadableStream({
				async start(controller) {
					if (parentFirst) {
						const calls = Array.from({ length: CHILDREN }, (_, i) => ({
							index: i,
							id: `call_${i}`,
							type: "function",
							function: { name: "subagent", arguments: JSON.stringify({ task: `child ${i}` }) },
						}));
						controller.enqueue(
							line({ id: "b", choices: [{ index: 0, delta: { role: "assistant", tool_calls: calls } }] }),
						);
						controller.enqueue(line({ id: "b", choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] }));
						controller.enqueue(encoder.encode("data: [DONE]\n\n"));
						controller.close();
						return;
					}
					if (parentAfter) {
						controller.enqueue(line({ id: "b", choices: [{ index: 0, delta: { content: "done" } }] }));
						return end(controller);
					}
					const k = streams++;
					await gate;
					for (let i = 0; i < TOKENS; i++) {
						sentAt.set(`s${k}w${i}`, performance.now());
						controller.enqueue(line({ id: "b", choices: [{ index: 0, delta: { content: ` s${k}w${i}` } }] }));
						await Bun.sleep(CHUNK_GAP_MS);
					}
					end(controller);
				},
			});
			return new Response(stream, { headers: { "content-type": "text/event-stream" } });
		},
	});
	return {
		url: `http://127.0.0.1:${server.port}/v1`,
		sentAt,
		/** Streams wait until `open()`; `hold()` closes the gate again. */
		hold() {
			gate = new Promise((resolve) => {
				release = resolve;
			});
		},
		open: () => release(),
		stop: () => server.stop(true),
	};
}

/** A watching client: it records when each tagged token first arrived in a patch. */
async function connect(server: P2Server) {
	const socket = new WebSocket(`${server.origin.replace(/^http/, "ws")}${SOCKET_PATH}`, {
		headers: { [DEVICE_TOKEN_HEADER]: server.deviceToken },
	} as unknown as string[]);
	const client = new ObjectClient();
	const recvAt = new Map<string, number>();
	socket.addEventListener("message", (event) => {
		const now = performance.now();
		const text = String(event.data);
		if (text.startsWith('{"t":"patch"')) {
			for (const m of text.matchAll(/ (s\d+w\d+)/g)) if (!recvAt.has(m[1]!)) recvAt.set(m[1]!, now);
		}
		client.receive(text);
	});
	await new Promise((resolve) => socket.addEventListener("open", resolve, { once: true }));
	client.attach((text) => socket.send(text));
	return { socket, client, recvAt };
}

function percentile(values: number[], p: number): number {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

const round = (n: number, digits = 3) => Math.round(n * 10 ** digits) / 10 ** digits;

function latencies(sentAt: ReadonlyMap<string, number>, recvAt: ReadonlyMap<string, number>) {
	const all: number[] = [];
	for (const [tag, at] of recvAt) {
		const sent = sentAt.get(tag);
		if (sent !== undefined) all.push(at - sent);
	}
	return { tokens: all.length, p50: round(percentile(all, 50)), p99: round(percentile(all, 99)) };
}

async function alone(server: P2Server, provider: ReturnType<typeof startProvider>, cwd: string) {
	const session = server.ctx.catalog.create({ cwd }).id;
	const c = await connect(server);
	const chat = c.client.open(chatContract, { session, conversation: "main" });
	await chat.ready;
	provider.open();
	await chat.call("send", { text: "stream alone", mode: "steer", requestId: crypto.randomUUID() });
	await new Promise<void>((resolve) => {
		const off = chat.onChange((s) => {
			if (s.live === null && s.entries.some((e) => e.kind === "assistant")) {
				off();
				resolve();
			}
		});
	});
	c.socket.close();
	return latencies(provider.sentAt, c.recvAt);
}

async function withSubagents(server: P2Server, provider: ReturnType<typeof startProvider>, cwd: string) {
	const session = server.ctx.catalog.create({ cwd }).id;
	provider.hold();
	const c = await connect(server);
	const chat = c.client.open(chatContract, { session, conversation: "main" });
	const list = c.client.open(conversationsContract, { session });
	await Promise.all([chat.ready, list.ready]);
	await chat.call("send", { text: "delegate please", mode: "steer", requestId: crypto.randomUUID() });
	// Every child is watched before any of them streams.
	const ids = await new Promise<string[]>((resolve) => {
		const off = list.onChange((s) => {
			const running = s.conversations.filter((x) => x.status === "running").map((x) => x.id);
			if (running.length === CHILDREN) {
				off();
				resolve(running);
			}
		});
	});
	const children = ids.map((id) => c.client.open(chatContract, { session, conversation: id }));
	await Promise.all(children.map((r) => r.ready));
	provider.open();
	await new Promise<void>((resolve) => {
		const off = chat.onChange((s) => {
			if (s.live === null && s.entries.filter((e) => e.kind === "assistant").length === 2) {
				off();
				resolve();
			}
		});
	});
	c.socket.close();
	return { subagents: CHILDREN, ...latencies(provider.sentAt, c.recvAt) };
}

async function main() {
	const dataDir = mkdtempSync(join(tmpdir(), "p2-bench-sub-"));
	const cwd = realpathSync(mkdtempSync(join(tmpdir(), "p2-bench-sub-cwd-")));
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
	// A first run warms the server up (its first stream pays for compiling what streams); it is not counted.
	await alone(server, provider, cwd);
	provider.sentAt.clear();
	const results = {
		tokensPerStream: TOKENS,
		oneConversationAlone: await alone(server, provider, cwd),
		fiveSubagentsAtOnce: await withSubagents(server, provider, cwd),
		note: "latency: provider write to the watching client's patch, in ms, over every token of every stream",
	};
	console.log(JSON.stringify(results, null, 2));
	await server.stop();
	provider.stop();
	rmSync(dataDir, { recursive: true, force: true });
	rmSync(cwd, { recursive: true, force: true });
}

await main();
