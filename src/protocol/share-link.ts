/** What the launcher, the server and the UI agree on about share links and guests. */

/** `/join/<43-character token>`: the path of a share link; the client puts its own origin in front. */
export const JOIN_PATH = /^\/join\/([A-Za-z0-9_-]{43})$/;

/** At most this many characters of a guest's display name, after control characters are removed. */
export const MAX_GUEST_NAME = 40;

/** A guest's name as others see it: their own claim, cleaned, and said to be unverified. */
export function guestLabel(name: string): string {
	return `${guestName(name) || "guest"} (unverified)`;
}

/** One line, no control or format characters, at most MAX_GUEST_NAME characters; empty when nothing is left. */
export function guestName(raw: string): string {
	return [
		...raw
			.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, " ")
			.replace(/\s+/g, " ")
			.trim(),
	]
		.slice(0, MAX_GUEST_NAME)
		.join("")
		.trim();
}
