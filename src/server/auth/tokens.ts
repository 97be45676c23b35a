/** 32 random bytes as base64url: 43 characters, the shape of every p2 link token and cookie. */
export function newToken(): string {
	const bytes = crypto.getRandomValues(new Uint8Array(32));
	return Buffer.from(bytes).toString("base64url");
}

export const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export function hashToken(token: string): string {
	return new Bun.CryptoHasher("sha256").update(token).digest("hex");
}

/** Constant-time comparison of two strings of any length. */
export function sameSecret(a: string, b: string): boolean {
	const ab = Buffer.from(a);
	const bb = Buffer.from(b);
	if (ab.length !== bb.length) return false;
	return crypto.timingSafeEqual(ab, bb);
}
