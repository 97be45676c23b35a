/**
 * Which hyperlinks (OSC 8) the output filter lets through: an https address a person can read whole (printable
 * ASCII, the host as the browser will read it, no user name or password in front of it, bounded), shown as the link's own text
 * (not concealed). A link whose text says anything else could send the person somewhere the screen does not
 * show, so it loses its link and keeps its text.
 */

/** The longest address a link may have, and the most text held while a link is open. */
export const MAX_LINK_URI = 2048;
export const MAX_LINK_TEXT = 2048;

/** The characters of a URI (RFC 3986), nothing else: no spaces, controls or other scripts to hide behind. */
const URI = /^https:\/\/[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]+$/;
const SGR_PARAM = /[0-9;:]/;

/** The address a link may open with, or undefined when it may not be one. */
export function linkTarget(uri: string): string | undefined {
	if (uri.length > MAX_LINK_URI || !URI.test(uri)) return undefined;
	let url: URL;
	try {
		url = new URL(uri);
	} catch {
		return undefined;
	}
	if (url.protocol !== "https:" || url.username !== "" || url.password !== "") return undefined;
	// The host as written is the host the terminal opens (not `https:///x`, an escaped or a default port).
	const authority = uri.slice("https://".length).split(/[/?#]/, 1)[0]!;
	return authority !== "" && authority.toLowerCase() === url.host ? uri : undefined;
}

/**
 * Whether a link's text, as the filter passed it, shows exactly its address: the address's characters in
 * order, with nothing between them but SGR. (A scan, not a copy: a frame can carry a link on every line.)
 */
export function linkShown(text: string, uri: string): boolean {
	if (text.length > MAX_LINK_TEXT || text.length < uri.length) return false;
	let at = 0;
	for (let i = 0; i < text.length; i++) {
		const c = text.charCodeAt(i);
		if (c === 0x1b) {
			// Only `ESC [ params m` may sit in a link's text, and none that hides it.
			if (text.charCodeAt(i + 1) !== 0x5b) return false;
			let j = i + 2;
			while (j < text.length && SGR_PARAM.test(text[j]!)) j++;
			if (text.charCodeAt(j) !== 0x6d || conceals(text.slice(i + 2, j))) return false;
			i = j;
			continue;
		}
		if (c !== uri.charCodeAt(at)) return false;
		at++;
	}
	return at === uri.length;
}

/** Whether SGR parameters turn on concealed text (8), read past the colors' own numbers (38/48/58 ; 5|2 ; …). */
function conceals(params: string): boolean {
	const list = params.split(";");
	for (let k = 0; k < list.length; k++) {
		const param = list[k]!;
		if (param === "8") return true;
		if (param === "38" || param === "48" || param === "58") k += list[k + 1] === "5" ? 2 : list[k + 1] === "2" ? 4 : 0;
	}
	return false;
}
