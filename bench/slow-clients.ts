/**
 * Slow clients (issue 17): ten WebSocket clients stop reading while one answer streams ~24 MiB of patches to
 * them and to one client that reads. Prints, per slow client, how the server closed it and how many bytes were
 * waiting for it then, and the server's memory (RSS) before, at its peak and after. The server runs as its own
 * process (`p2 serve`), so its memory is its own. Run: bun bench/slow-clients.ts
 */
import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEVICE_TOKEN_HEADER, SERVER_INFO_FILE, ServerInfo } from "../src/protocol/server-info.ts";
import { SOCKET_BUFFER_LIMIT } from "../src/server/server.ts";
import { startFakeOpenAI, writeFakeModelsJson } from "../test/support/fake-openai.ts";
import { connectRaw, type RawSocket } from "../test/support/raw-ws.ts";

const SLOW_CLIENTS = 10;
const ANSWER_BYTES = 24 * 1024 * 1024;
// Few large deltas: per-delta work upstream of the server grows with the answer so far.
const CHUNK_BYTES = 256 * 1024;
const MAIN = join(import.meta.dir, "..", "src", "main.ts");
const mib = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

/** Resident and peak resident memory of a process, from /proc (Linux). */
function memory(pid: number): { rss: number; peak: number } {
	const status = readFileSync(`/proc/${pid}/status`, "utf8");
	const kib = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN);
	return { rss: kib("VmRSS") * 1024, peak: kib("VmHWM") * 1024 };
}

async function startServe(dataDir: string) {
	const proc = Bun.spawn([process.execPath, MAIN, "serve", "--port", "0"], {
		env: { ...process.env, P2_DATA_DIR: dataDir },
		stdout: "pipe",
		stderr: "inherit",
	});
	let out = "";
	for await (const chunk of proc.stdout) {
		out += new TextDecoder().decode(chunk);
		if (out.includes("Owner link")) break;
	}
	return { proc, info: ServerInfo.assert(JSON.parse(readFileSync(join(dataDir, SERVER_INFO_FILE), "utf8"))) };
}

let nextCall = 1;
/** Calls a method on handle `h` and resolves with the result's value. */
async function call(socket: RawSocket, h: number, method: string, args: unknown): Promise<unknown> {
	const id = nextCall++;
	socket.send(JSON.stringify({ t: "call", h, id, method, args }));
	const text = await socket.next((t) => t.startsWith('{"t":"result"') && JSON.parse(t).id === id);
	const result = JSON.parse(text);
	if (!result.ok) throw new Error(`${method}: ${result.code}: ${result.message}`);
	return result.value;
}

async function open(socket: RawSocket, h: number, object: string, input: unknown): Promise<void> {
	socket.send(JSON.stringify({ t: "open", h, object, version: 1, input }));
	await socket.next((t) => t.startsWith(`{"t":"snapshot","h":${h},`));
}

/** One server, one reading client and `slowCount` clients that stop reading while the answer streams. */
async function round(slowCount: number) {
	const dataDir = mkdtempSync(join(tmpdir(), "p2-bench-slow-"));
	const cwd = realpathSync(mkdtempSync(join(tmpdir(), "p2-bench-cwd-")));
	const fake = await startFakeOpenAI();
	writeFakeModelsJson(dataDir, fake.baseUrl);
	const { proc, info } = await startServe(dataDir);
	try {
		const headers = { [DEVICE_TOKEN_HEADER]: info.deviceToken };
		const reader = await connectRaw(info.origin, headers);
		await open(reader, 1, "sessions", {});
		const { id } = (await call(reader, 1, "create", { cwd })) as { id: string };
		const chat = { session: id, conversation: "main" };
		await open(reader, 2, "chat", chat);
		let readerClosed = false;
		void reader.closed.then(() => {
			readerClosed = true;
		});

		const slow = await Promise.all(Array.from({ length: slowCount }, () => connectRaw(info.origin, headers)));
		await Promise.all(slow.map((s) => open(s, 1, "chat", chat)));
		for (const s of slow) s.pause();
		const before = memory(proc.pid);

		fake.enqueue({ text: "x".repeat(ANSWER_BYTES), chunks: ANSWER_BYTES / CHUNK_BYTES });
		const started = performance.now();
		await call(reader, 2, "send", { text: "a long answer, please", mode: "steer", requestId: crypto.randomUUID() });
		await reader.next((t) => t.includes('"path":["live"],"value":null'));
		const streamMs = performance.now() - started;
		const during = memory(proc.pid);

		for (const s of slow) s.resume();
		const closes = await Promise.all(slow.map((s) => s.closed));
		const after = memory(proc.pid);
		const waiting = closes.map((c) => Number(/([\d.]+) MiB were waiting/.exec(c.reason)?.[1] ?? Number.NaN));
		reader.destroy();
		for (const s of slow) s.destroy();
		return {
			slowClients: slowCount,
			streamMs: Math.round(streamMs),
			readingClientClosed: readerClosed,
			closeCodes: [...new Set(closes.map((c) => c.code))],
			bufferedPerSlowClientMiB: waiting,
			receivedPerSlowClientMiB: slow.map((s) => mib(s.texts.reduce((n, t) => n + Buffer.byteLength(t), 0))),
			serverRssMiB: { before: mib(before.rss), peak: mib(during.peak), afterClosing: mib(after.rss) },
		};
	} finally {
		proc.kill();
		await proc.exited;
		await fake.stop();
		rmSync(dataDir, { recursive: true, force: true });
		rmSync(cwd, { recursive: true, force: true });
	}
}

const results = {
	streamedMiB: mib(ANSWER_BYTES),
	limitPerClientMiB: mib(SOCKET_BUFFER_LIMIT),
	rounds: [] as unknown[],
};
for (const slowCount of [0, SLOW_CLIENTS]) results.rounds.push(await round(slowCount));
console.log(JSON.stringify(results, null, 2));
