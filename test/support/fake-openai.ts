import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** One scripted answer of the fake provider. */
export type FakeReply =
	| {
			text?: string;
			/** Streamed as `delta.reasoning_content`, as llama.cpp and others do. */
			thinking?: string;
			toolCalls?: { id?: string; name: string; args: Record<string, unknown> }[];
			/** Text is split into this many deltas (default 4). */
			chunks?: number;
			chunkDelayMs?: number;
			usage?: { prompt: number; completion: number; cached?: number };
	  }
	/** An HTTP error; pi-ai treats 429 and 5xx as transient. */
	| { status: number; error: string }
	/** Starts a stream and sends nothing more until the client goes away. */
	| { hang: true };

export interface FakeOpenAI {
	/** e.g. http://127.0.0.1:1234/v1 */
	readonly baseUrl: string;
	/** Parsed JSON request bodies, in order. */
	readonly requests: unknown[];
	/** The Authorization header of each request, in order. */
	readonly authorizations: (string | null)[];
	/** Consumed one per request; an empty queue answers with the text "ok". */
	enqueue(...replies: FakeReply[]): void;
	/** Resolves when the n-th request (1-based, counting all so far) has arrived; rejects after `timeoutMs`. */
	waitForRequest(n: number, timeoutMs?: number): Promise<unknown>;
	stop(): Promise<void>;
}

function split(text: string, n: number): string[] {
	if (text === "") return [];
	const size = Math.max(1, Math.ceil(text.length / Math.max(1, n)));
	const parts: string[] = [];
	for (let i = 0; i < text.length; i += size) parts.push(text.slice(i, i + size));
	return parts;
}

/** A loopback OpenAI-compatible chat-completions endpoint that streams scripted answers as real SSE. */
export async function startFakeOpenAI(): Promise<FakeOpenAI> {
	const queue: FakeReply[] = [];
	const requests: unknown[] = [];
	const authorizations: (string | null)[] = [];
	const waiters: { n: number; resolve: (body: unknown) => void }[] = [];
	let callCounter = 0;
	const encoder = new TextEncoder();

	const server = Bun.serve({
		hostname: "127.0.0.1",
		port: 0,
		idleTimeout: 0,
		async fetch(req) {
			const url = new URL(req.url);
			if (req.method !== "POST" || !url.pathname.endsWith("/chat/completions")) {
				return new Response("not found", { status: 404 });
			}
			const body = await req.json();
			authorizations.push(req.headers.get("authorization"));
			requests.push(body);
			for (const w of waiters.filter((w) => requests.length >= w.n)) {
				waiters.splice(waiters.indexOf(w), 1);
				w.resolve(body);
			}
			const reply: FakeReply = queue.shift() ?? { text: "ok" };
			if ("status" in reply) {
				return Response.json({ error: { message: reply.error, type: "server_error" } }, { status: reply.status });
			}
			const id = `chatcmpl-${requests.length}`;
			const chunk = (delta: Record<string, unknown>, finish: string | null = null, extra: object = {}) =>
				encoder.encode(
					`data: ${JSON.stringify({ id, object: "chat.completion.chunk", model: "fake-model", choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`,
				);
			const stream = new ReadableStream<Uint8Array>({
				async start(controller) {
					const signal = req.signal;
					if ("hang" in reply) {
						controller.enqueue(chunk({ role: "assistant", content: "" }));
						await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
						try {
							controller.close();
						} catch {
							// The client is gone.
						}
						return;
					}
					const pause = () => (reply.chunkDelayMs ? Bun.sleep(reply.chunkDelayMs) : Promise.resolve());
					const n = reply.chunks ?? 4;
					try {
						controller.enqueue(chunk({ role: "assistant", content: "" }));
						for (const part of split(reply.thinking ?? "", n)) {
							controller.enqueue(chunk({ reasoning_content: part }));
							await pause();
						}
						for (const part of split(reply.text ?? "", n)) {
							controller.enqueue(chunk({ content: part }));
							await pause();
						}
						for (const [index, call] of (reply.toolCalls ?? []).entries()) {
							const callId = call.id ?? `call_${++callCounter}`;
							const args = JSON.stringify(call.args);
							const half = Math.ceil(args.length / 2);
							controller.enqueue(
								chunk({
									tool_calls: [
										{
											index,
											id: callId,
											type: "function",
											function: { name: call.name, arguments: args.slice(0, half) },
										},
									],
								}),
							);
							controller.enqueue(chunk({ tool_calls: [{ index, function: { arguments: args.slice(half) } }] }));
							await pause();
						}
						const finish = reply.toolCalls?.length ? "tool_calls" : "stop";
						controller.enqueue(chunk({}, finish));
						const usage = reply.usage ?? { prompt: 100, completion: 20, cached: 40 };
						controller.enqueue(
							encoder.encode(
								`data: ${JSON.stringify({
									id,
									object: "chat.completion.chunk",
									choices: [],
									usage: {
										prompt_tokens: usage.prompt,
										completion_tokens: usage.completion,
										total_tokens: usage.prompt + usage.completion,
										prompt_tokens_details: { cached_tokens: usage.cached ?? 0 },
									},
								})}\n\n`,
							),
						);
						controller.enqueue(encoder.encode("data: [DONE]\n\n"));
						controller.close();
					} catch {
						// The client went away mid-stream.
					}
				},
			});
			return new Response(stream, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
		},
	});

	return {
		baseUrl: `http://127.0.0.1:${server.port}/v1`,
		requests,
		authorizations,
		enqueue: (...replies) => {
			queue.push(...replies);
		},
		waitForRequest(n, timeoutMs = 20_000) {
			if (requests.length >= n) return Promise.resolve(requests[n - 1]);
			return new Promise((resolve, reject) => {
				const timer = setTimeout(() => {
					waiters.splice(waiters.indexOf(waiter), 1);
					reject(new Error(`timed out waiting for request ${n} (${requests.length} so far)`));
				}, timeoutMs);
				const waiter = {
					n,
					resolve: (body: unknown) => {
						clearTimeout(timer);
						resolve(body);
					},
				};
				waiters.push(waiter);
			});
		},
		async stop() {
			server.stop(true);
		},
	};
}

/** Configures the fake as provider "fake" with one reasoning model "fake-model", the way pi's models.json does. */
export function writeFakeModelsJson(dataDir: string, baseUrl: string): void {
	const config = {
		providers: {
			fake: {
				baseUrl,
				api: "openai-completions",
				apiKey: "test-key",
				models: [{ id: "fake-model", name: "Fake Model", reasoning: true, contextWindow: 128000, maxTokens: 8192 }],
			},
		},
	};
	writeFileSync(join(dataDir, "models.json"), `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
}

/**
 * A server's data directory whose models.json names the fake model, a working directory for its sessions, and
 * the fake itself; `cleanups` removes all three.
 */
export async function fakeModelDirs(
	cleanups: (() => unknown)[],
	prefix: string,
): Promise<{ dataDir: string; cwd: string; fake: FakeOpenAI }> {
	const dataDir = mkdtempSync(join(tmpdir(), prefix));
	const cwd = realpathSync(mkdtempSync(join(tmpdir(), "p2-cwd-")));
	cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
	cleanups.push(() => rmSync(cwd, { recursive: true, force: true }));
	const fake = await startFakeOpenAI();
	cleanups.push(() => fake.stop());
	writeFakeModelsJson(dataDir, fake.baseUrl);
	return { dataDir, cwd, fake };
}
