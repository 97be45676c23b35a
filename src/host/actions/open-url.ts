/** An address the UI wants opened in the person's browser (https, or a port they forwarded), shown with its site, opened on a yes. */
import type { WorkerMessage } from "../../protocol/channel.ts";
import type { ActionContext, Answer } from "./context.ts";
import { DONE } from "./context.ts";
import { isForwardedPort } from "./forward.ts";

/**
 * An address the launcher will hand to the browser: https, or http to a port of this computer's loopback that
 * the person forwarded (`/ports`); no user or password, no control characters.
 */
export function externalUrl(text: string, forwarded: (port: number) => boolean = isForwardedPort): string | undefined {
	if (/[\x00-\x20\x7f]/.test(text)) return undefined;
	try {
		const url = new URL(text);
		if (url.username || url.password) return undefined;
		if (url.protocol === "https:") return url.href;
		const port = Number(url.port);
		if (url.protocol === "http:" && url.hostname === "127.0.0.1" && url.port && forwarded(port)) return url.href;
		return undefined;
	} catch {
		return undefined;
	}
}

/**
 * The host (as the browser will resolve it: punycode for international names) and its site, the registrable
 * domain by the public suffix list (private suffixes such as github.io included), which is what the person
 * must recognise.
 */
export async function urlSite(href: string): Promise<{ host: string; site: string }> {
	const { hostname } = new URL(href);
	const { getDomain } = await import("tldts");
	const site = getDomain(hostname, { allowPrivateDomains: true }) ?? hostname;
	return { host: hostname, site };
}

/**
 * The platform's browser opener, as argv (never a shell: on Windows `start` would read `&` in the address as a
 * second command; `rundll32 url.dll,FileProtocolHandler` takes it whole).
 */
export function browserCommand(url: string, platform: string): string[] {
	if (platform === "darwin") return ["open", url];
	if (platform === "win32") return ["rundll32", "url.dll,FileProtocolHandler", url];
	return ["xdg-open", url];
}

/** The platform's opener, detached. */
function openInBrowser(url: string, platform: string): boolean {
	const argv = browserCommand(url, platform);
	try {
		const proc = Bun.spawn(argv, { stdin: "ignore", stdout: "ignore", stderr: "ignore" });
		proc.unref();
		return true;
	} catch {
		return false;
	}
}

const SESSION_ID = /^[0-9a-f-]{36}$/;
const ARTIFACT_NAME = /^[\w][\w .()-]{0,99}$/;

/**
 * A page of the server's own, on the launcher's origin: only an artifact or a sent file of the session on screen
 * (`/artifact?session&name&version`, `/download?session&id`), rebuilt from its checked parts; undefined otherwise.
 */
export function originUrl(origin: string, path: string, session: string | undefined): string | undefined {
	if (!path.startsWith("/") || path.startsWith("//") || /[\x00-\x20\x7f\\]/.test(path)) return undefined;
	let url: URL;
	try {
		url = new URL(path, origin);
	} catch {
		return undefined;
	}
	const base = new URL(origin);
	if (url.origin !== base.origin || url.username || url.password || url.hash) return undefined;
	const params = url.searchParams;
	const only = (...keys: string[]) => [...params.keys()].every((k) => keys.includes(k)) && params.size === keys.length;
	if (!session || params.get("session") !== session || !SESSION_ID.test(session)) return undefined;
	if (url.pathname === "/artifact" && only("session", "name", "version")) {
		const name = params.get("name") ?? "";
		const version = params.get("version") ?? "";
		if (!ARTIFACT_NAME.test(name) || !/^[1-9]\d{0,8}$/.test(version)) return undefined;
		return `${base.origin}/artifact?${new URLSearchParams({ session, name, version })}`;
	}
	if (url.pathname === "/download" && only("session", "id")) {
		const id = params.get("id") ?? "";
		if (!SESSION_ID.test(id)) return undefined;
		return `${base.origin}/download?${new URLSearchParams({ session, id })}`;
	}
	return undefined;
}

export async function openUrlRequest<W>(
	ctx: ActionContext<W>,
	payload: Extract<WorkerMessage, { action: "openUrl" }>["payload"],
): Promise<Answer> {
	if (Object.hasOwn(payload, "kind")) {
		const { path } = payload as Extract<typeof payload, { kind: "origin" }>;
		const url = originUrl(ctx.host.origin(), path, ctx.host.session(ctx.worker));
		if (!url) return { ok: false, error: "only an artifact or a file of the session on screen is opened" };
		const { hostname } = new URL(url);
		const decision = await ctx.ask(
			{
				action: "Open this page of the server in your browser (the UI asked)",
				facts: [
					"The browser needs its own sign-in (owner link or share link).",
					"Nothing is added to the address: no cookie, no token.",
				],
				preview: { kind: "url", url, host: hostname, site: hostname },
				offerNever: true,
			},
			ctx.host.session(ctx.worker),
		);
		if (decision !== "yes") return { ok: false, error: decision };
		if (openInBrowser(url, ctx.host.platform)) return DONE;
		await ctx.notice("The address was not opened", ["No browser opener (xdg-open, open) was found on this computer."]);
		return { ok: false, error: "failed" };
	}
	const url = externalUrl((payload as { url: string }).url);
	if (!url) return { ok: false, error: "only https addresses without credentials, or a forwarded port, are opened" };
	const { host, site } = await urlSite(url);
	const decision = await ctx.ask({
		action: "Open this address in your browser (the UI asked)",
		facts: ["Nothing is added to it; the browser signs in on its own."],
		preview: { kind: "url", url, host, site },
		offerNever: true,
	});
	if (decision !== "yes") return { ok: false, error: decision };
	if (openInBrowser(url, ctx.host.platform)) return DONE;
	await ctx.notice("The address was not opened", ["No browser opener (xdg-open, open) was found on this computer."]);
	return { ok: false, error: "failed" };
}
