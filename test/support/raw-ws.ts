import { randomBytes } from "node:crypto";
import net from "node:net";
import { SOCKET_PATH } from "../../src/protocol/server-info.ts";

/**
 * A WebSocket client on a bare TCP socket, for what a browser-style client cannot do: stop reading (`pause`)
 * so that the server's frames pile up, then read on (`resume`) and see exactly what was sent, close frame
 * included.
 */
export interface RawSocket {
	/** Text frames received, in order. */
	readonly texts: string[];
	/** Resolves with the server's close code and reason. */
	readonly closed: Promise<{ code: number; reason: string }>;
	/** Resolves with the first text frame that satisfies `match`, counting those already received. */
	next(match: (text: string) => boolean): Promise<string>;
	send(text: string): void;
	pause(): void;
	resume(): void;
	destroy(): void;
}

export async function connectRaw(origin: string, headers: Record<string, string>): Promise<RawSocket> {
	const url = new URL(origin);
	const socket = net.connect(Number(url.port), url.hostname);
	const texts: string[] = [];
	const waiters: { match: (text: string) => boolean; resolve: (text: string) => void }[] = [];
	let settleClosed: (value: { code: number; reason: string }) => void = () => {};
	const closed = new Promise<{ code: number; reason: string }>((resolve) => {
		settleClosed = resolve;
	});
	let buffer = Buffer.alloc(0);
	// Chunks of a frame still incomplete: joined once it is whole, so a large frame is not copied per chunk.
	let pending: Buffer[] = [];
	let pendingBytes = 0;
	let needed = 0;
	let upgraded = false;
	const opened = new Promise<void>((resolve, reject) => {
		socket.once("error", reject);
		socket.on("data", (chunk: Buffer) => {
			if (upgraded && pendingBytes + chunk.length < needed) {
				pending.push(chunk);
				pendingBytes += chunk.length;
				return;
			}
			buffer = Buffer.concat([buffer, ...pending, chunk]);
			pending = [];
			pendingBytes = buffer.length;
			needed = 0;
			if (!upgraded) {
				const end = buffer.indexOf("\r\n\r\n");
				if (end < 0) return;
				const head = buffer.subarray(0, end).toString();
				if (!head.startsWith("HTTP/1.1 101")) return reject(new Error(`no upgrade: ${head}`));
				upgraded = true;
				buffer = buffer.subarray(end + 4);
				resolve();
			}
			for (let frame = readFrame(buffer); frame; frame = readFrame(buffer)) {
				buffer = buffer.subarray(frame.size);
				pendingBytes = buffer.length;
				if (frame.opcode === 1) {
					const text = frame.payload.toString("utf8");
					texts.push(text);
					for (const w of waiters.splice(0)) {
						if (w.match(text)) w.resolve(text);
						else waiters.push(w);
					}
				} else if (frame.opcode === 8) {
					settleClosed({
						code: frame.payload.length >= 2 ? frame.payload.readUInt16BE(0) : 1005,
						reason: frame.payload.subarray(2).toString("utf8"),
					});
				}
			}
			needed = frameSize(buffer);
			if (needed > 0) {
				pending = [buffer];
				buffer = Buffer.alloc(0);
			}
		});
	});
	socket.once("connect", () => {
		const lines = [
			`GET ${SOCKET_PATH} HTTP/1.1`,
			`Host: ${url.host}`,
			"Upgrade: websocket",
			"Connection: Upgrade",
			`Sec-WebSocket-Key: ${randomBytes(16).toString("base64")}`,
			"Sec-WebSocket-Version: 13",
			...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
		];
		socket.write(`${lines.join("\r\n")}\r\n\r\n`);
	});
	await opened;
	return {
		texts,
		closed,
		next(match) {
			const found = texts.find(match);
			if (found !== undefined) return Promise.resolve(found);
			return new Promise((resolve) => waiters.push({ match, resolve }));
		},
		send(text) {
			socket.write(maskedTextFrame(text));
		},
		pause: () => socket.pause(),
		resume: () => socket.resume(),
		destroy: () => socket.destroy(),
	};
}

/** Header size and payload length of the frame at the start of `buffer`, when its header is all there. */
function frameHeader(buffer: Buffer): { offset: number; length: number } | undefined {
	if (buffer.length < 2) return undefined;
	const length = buffer[1]! & 0x7f;
	if (length === 126) return buffer.length < 4 ? undefined : { offset: 4, length: buffer.readUInt16BE(2) };
	if (length === 127) return buffer.length < 10 ? undefined : { offset: 10, length: Number(buffer.readBigUInt64BE(2)) };
	return { offset: 2, length };
}

/** Bytes the incomplete frame at the start of `buffer` needs in all; 0 when its header is not there yet. */
function frameSize(buffer: Buffer): number {
	const header = frameHeader(buffer);
	return header ? header.offset + header.length : 0;
}

function readFrame(buffer: Buffer): { opcode: number; payload: Buffer; size: number } | undefined {
	const header = frameHeader(buffer);
	if (!header || buffer.length < header.offset + header.length) return undefined;
	const { offset, length } = header;
	return { opcode: buffer[0]! & 0x0f, payload: buffer.subarray(offset, offset + length), size: offset + length };
}

/** A client's frames are masked (RFC 6455 §5.3). */
function maskedTextFrame(text: string): Buffer {
	const payload = Buffer.from(text, "utf8");
	const mask = randomBytes(4);
	const length = payload.length;
	const head =
		length < 126
			? Buffer.from([0x81, 0x80 | length])
			: length < 65536
				? Buffer.from([0x81, 0x80 | 126, length >> 8, length & 0xff])
				: Buffer.concat([Buffer.from([0x81, 0x80 | 127]), bigLength(length)]);
	const body = Buffer.alloc(length);
	for (let i = 0; i < length; i++) body[i] = payload[i]! ^ mask[i % 4]!;
	return Buffer.concat([head, mask, body]);
}

function bigLength(length: number): Buffer {
	const out = Buffer.alloc(8);
	out.writeBigUInt64BE(BigInt(length));
	return out;
}
