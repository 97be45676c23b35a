import { own } from "../protocol/own-keys.ts";

/**
 * Every HTTP request the launcher makes: a fixed path on the configured origin (never a server-supplied URL),
 * no redirects (credentials never follow one), a timeout, and a bounded response.
 */
export interface TrustedRequest {
	readonly origin: string;
	readonly path: string;
	readonly method?: "GET" | "HEAD" | "POST";
	readonly headers?: Record<string, string>;
	readonly body?: string | Uint8Array;
	readonly timeoutMs?: number;
	readonly maxBytes?: number;
	/** Keep the body as bytes (a file), not text. */
	readonly binary?: boolean;
}

export interface TrustedResponse {
	readonly status: number;
	readonly headers: Headers;
	readonly body: string;
	readonly bytes?: Uint8Array;
}

export class TransportError extends Error {
	override name = "TransportError";
}

export async function trustedFetch(req: TrustedRequest): Promise<TrustedResponse> {
	const url = new URL(req.path, req.origin);
	if (url.origin !== req.origin) throw new TransportError("refused a request outside the server's origin");
	const maxBytes = req.maxBytes ?? 64 * 1024;
	let response: Response;
	try {
		response = await fetch(url, {
			method: req.method ?? "GET",
			headers: { origin: req.origin, ...req.headers },
			body: req.body as BodyInit | undefined,
			redirect: "error",
			signal: AbortSignal.timeout(req.timeoutMs ?? 10_000),
		});
	} catch (error) {
		throw new TransportError(`${req.origin}: ${failureReason(error)}`);
	}
	const declared = Number(response.headers.get("content-length") ?? "0");
	if (declared > maxBytes) {
		await response.body?.cancel();
		throw new TransportError(`${req.origin}: the answer is larger than ${maxBytes} bytes`);
	}
	const chunks: Uint8Array[] = [];
	let size = 0;
	if (response.body && req.method !== "HEAD") {
		const reader = response.body.getReader();
		for (;;) {
			const { done, value } = await reader.read();
			if (done) break;
			size += value.byteLength;
			if (size > maxBytes) {
				await reader.cancel();
				throw new TransportError(`${req.origin}: the answer is larger than ${maxBytes} bytes`);
			}
			chunks.push(value);
		}
	}
	const all = Buffer.concat(chunks);
	if (req.binary) return { status: response.status, headers: response.headers, body: "", bytes: all };
	return { status: response.status, headers: response.headers, body: new TextDecoder().decode(all) };
}

/** Why a request failed, in the launcher's words (the error's own text may come from the network). */
function failureReason(error: unknown): string {
	const name = error instanceof Error ? error.name : "";
	const code = own(error, "code");
	if (name === "TimeoutError") return "timed out";
	if (code === "UnexpectedRedirect") return "answered with a redirect, which p2 never follows";
	return "could not connect";
}

/** One plain line of a server's error text, for showing: no controls, bounded. */
export function plainLine(text: string, max = 200): string {
	let out = "";
	for (const ch of text) {
		const code = ch.codePointAt(0)!;
		out += code < 0x20 || (code >= 0x7f && code < 0xa0) ? " " : ch;
		if (out.length >= max) break;
	}
	return out.trim();
}

/** The server's reason for an error answer (its `error` field), as one plain line, or the status. */
export function serverReason(body: string, status: number): string {
	try {
		const reason = own(JSON.parse(body), "error");
		if (typeof reason === "string" && reason) return plainLine(reason);
	} catch {}
	return `HTTP ${status}`;
}
