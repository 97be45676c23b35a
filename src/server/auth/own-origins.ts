import { isLoopback } from "./principals.ts";

/** Where the server listens and the origin its clients use when a proxy stands in front. */
export interface Binding {
	readonly scheme: "http" | "https";
	readonly hostname: string;
	readonly port: number;
	readonly publicOrigin?: string;
}

/**
 * The origins and host names that are this server's own. Same-origin checks compare a request's Origin with
 * these and never with its Host header: a page whose name was re-pointed at this server (DNS rebinding) sends
 * a Host and an Origin that both name the attacker's host.
 */
export interface OwnOrigins {
	isOwnOrigin(origin: string | null): boolean;
	/**
	 * On a loopback address only requests that name one of the server's own hosts are answered, the classic
	 * rebinding defence; elsewhere (TLS, or a proxy in front) every Host is answered and the Origin check holds.
	 */
	acceptsHost(host: string | null): boolean;
}

/** The names a loopback address is also reached by: `localhost` means 127.0.0.1 or ::1. */
function loopbackNames(hostname: string): string[] {
	if (hostname === "localhost" || hostname === "127.0.0.1") return ["127.0.0.1", "localhost"];
	if (hostname === "::1" || hostname === "[::1]") return ["[::1]", "localhost"];
	return [urlHost(hostname)];
}

export function isLoopbackHostname(hostname: string): boolean {
	return hostname === "localhost" || isLoopback(hostname) || hostname === "[::1]";
}

/** `0.0.0.0`, `::`: every address, so no name of its own. */
export function isWildcardHostname(hostname: string): boolean {
	return hostname === "0.0.0.0" || hostname === "::" || hostname === "[::]";
}

function urlHost(hostname: string): string {
	return hostname.includes(":") && !hostname.startsWith("[") ? `[${hostname}]` : hostname;
}

/** The Host header values a client of `origin` may send: `host:port`, and plain `host` on the default port. */
function hostsOf(origin: string): string[] {
	const url = new URL(origin);
	const defaultPort = url.protocol === "https:" ? "443" : "80";
	return url.port === "" ? [url.host, `${url.host}:${defaultPort}`] : [url.host];
}

/** The origin the server names itself by: its public origin, else its bound address's (`localhost`: 127.0.0.1). */
export function primaryOrigin(binding: Binding): string {
	if (binding.publicOrigin !== undefined) return binding.publicOrigin;
	const name = binding.hostname === "localhost" ? "127.0.0.1" : urlHost(binding.hostname);
	return `${binding.scheme}://${name}:${binding.port}`;
}

export function ownOrigins(binding: Binding): OwnOrigins {
	const loopback = isLoopbackHostname(binding.hostname);
	const bound = loopback
		? loopbackNames(binding.hostname)
		: isWildcardHostname(binding.hostname)
			? []
			: [urlHost(binding.hostname)];
	const origins = new Set(bound.map((name) => new URL(`${binding.scheme}://${name}:${binding.port}`).origin));
	if (binding.publicOrigin !== undefined) origins.add(new URL(binding.publicOrigin).origin);
	const hosts = new Set([...origins].flatMap(hostsOf));
	return {
		isOwnOrigin: (origin) => origin !== null && origins.has(origin),
		acceptsHost: (host) => !loopback || (host !== null && hosts.has(host.toLowerCase())),
	};
}
