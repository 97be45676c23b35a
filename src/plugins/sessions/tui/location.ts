/**
 * A session's location as the footer writes it, `[env:]path` (`gpu:/data`), read from what was typed after /cd
 * or /new. No prefix: the session's own environment for /cd, this device for /new. `local:` is this
 * device unless an environment is called so. A one-letter prefix reads as a Windows drive (part of the path).
 * Relative paths join the session's directory for /cd on its own environment, the home directory otherwise;
 * `~` is expanded by the server, on the target machine.
 */
export const LOCAL = "local";

export interface Location {
	readonly env: string;
	readonly path: string;
}

/** `.` and `..` resolved in an absolute or `~` path (either separator style), without a trailing slash. */
export function normalizePath(path: string): string {
	const unified = path.replace(/\\/g, "/");
	const tilde = unified === "~" || unified.startsWith("~/");
	const absolute = unified.startsWith("/");
	const parts: string[] = [];
	for (const part of (tilde ? unified.slice(1) : unified).split("/")) {
		if (part === "" || part === ".") continue;
		if (part === "..") {
			if (parts.length > 0 && parts.at(-1) !== "..") parts.pop();
			else if (!absolute && !tilde) parts.push("..");
			continue;
		}
		parts.push(part);
	}
	const body = parts.join("/");
	if (tilde) return body ? `~/${body}` : "~";
	return absolute ? `/${body}` : body || ".";
}

/** The environment named by a prefix, or an error; null when the text has no environment prefix. */
function prefixOf(typed: string, envs: readonly string[]): { env: string; rest: string } | { error: string } | null {
	const match = /^([A-Za-z0-9][A-Za-z0-9_.-]*):(.*)$/s.exec(typed);
	if (!match) return null;
	const [, name = "", rest = ""] = match;
	if (envs.includes(name)) return { env: name, rest };
	if (name === LOCAL) return { env: LOCAL, rest };
	if (name.length === 1) return null;
	return { error: `Unknown environment ${name}` };
}

export interface LocationContext {
	/** The configured environments' names (beside this device). */
	readonly envs: readonly string[];
	/** /cd: the open session's place (relative paths join its directory on its environment). */
	readonly session?: Location;
}

/** What was typed, as a place; an error names what is wrong. */
export function parseLocation(typed: string, context: LocationContext): Location | { error: string } {
	const text = typed.trim();
	const prefix = prefixOf(text, context.envs);
	if (prefix && "error" in prefix) return prefix;
	const env = prefix ? prefix.env : (context.session?.env ?? LOCAL);
	const raw = prefix ? prefix.rest : text;
	if (raw === "") return { env, path: "~" };
	if (raw.startsWith("/") || raw === "~" || raw.startsWith("~/") || /^[A-Za-z]:[\\/]/.test(raw)) {
		return { env, path: normalizePath(raw) };
	}
	const base = context.session && context.session.env === env ? context.session.path : "~";
	return { env, path: normalizePath(`${base}/${raw}`) };
}

/** The footer's form of a place. */
export function formatLocation(env: string, path: string): string {
	return env === LOCAL ? path : `${env}:${path}`;
}
