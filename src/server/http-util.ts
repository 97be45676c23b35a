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

/**
 * A `Set-Cookie` value for a sign-in cookie: HttpOnly (no script reads it), SameSite=Strict, for the whole
 * server (Path=/), kept for `maxAge` seconds (0 clears it), and Secure when the server is reached over TLS.
 */
export function signInCookie(name: string, value: string, options: { maxAge: number; secure: boolean }): string {
	return new Bun.Cookie(name, value, {
		httpOnly: true,
		sameSite: "strict",
		path: "/",
		maxAge: options.maxAge,
		secure: options.secure,
	}).serialize();
}

/** A cookie sent with the request; undefined when there is none by that name. */
export function readCookie(req: Request, name: string): string | undefined {
	const header = req.headers.get("cookie");
	return header ? (new Bun.CookieMap(header).get(name) ?? undefined) : undefined;
}
