/** Reads a request body up to `limit` bytes; null when it is larger (declared or streamed) or unreadable. */
export async function readBoundedBytes(req: Request, limit: number): Promise<Uint8Array | null> {
	const declared = Number(req.headers.get("content-length") ?? "0");
	if (declared > limit) return null;
	if (!req.body) return new Uint8Array();
	const reader = req.body.getReader();
	const chunks: Uint8Array[] = [];
	let size = 0;
	for (;;) {
		const { done, value } = await reader.read();
		if (done) break;
		size += value.byteLength;
		if (size > limit) {
			await reader.cancel();
			return null;
		}
		chunks.push(value);
	}
	return Buffer.concat(chunks);
}

/** Reads a request body up to `limit` bytes as text; null when it is larger or unreadable. */
export async function readBoundedText(req: Request, limit: number): Promise<string | null> {
	const bytes = await readBoundedBytes(req, limit);
	return bytes === null ? null : new TextDecoder().decode(bytes);
}

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
	return new Response(JSON.stringify(body), {
		status,
		headers: { "content-type": "application/json", "cache-control": "no-store", ...headers },
	});
}

export function problem(status: number, message: string): Response {
	return json({ error: message }, status);
}
