/** An address the UI wants opened in the person's browser: https only, shown with its site, opened on a yes. */
import type { WorkerMessage } from "../../protocol/channel.ts";
import type { ActionContext, Answer } from "./context.ts";
import { DONE } from "./context.ts";

/** An address the launcher will hand to the browser: https, no user or password, no control characters. */
export function externalUrl(text: string): string | undefined {
	if (/[\x00-\x20\x7f]/.test(text)) return undefined;
	try {
		const url = new URL(text);
		if (url.protocol !== "https:" || url.username || url.password) return undefined;
		return url.href;
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

/** The platform's opener, by argv (no shell), detached. */
function openInBrowser(url: string, platform: string): boolean {
	const argv =
		platform === "darwin"
			? ["open", url]
			: platform === "win32"
				? ["rundll32", "url.dll,FileProtocolHandler", url]
				: ["xdg-open", url];
	try {
		const proc = Bun.spawn(argv, { stdin: "ignore", stdout: "ignore", stderr: "ignore" });
		proc.unref();
		return true;
	} catch {
		return false;
	}
}

export async function openUrlRequest<W>(
	ctx: ActionContext<W>,
	payload: Extract<WorkerMessage, { action: "openUrl" }>["payload"],
): Promise<Answer> {
	const url = externalUrl(payload.url);
	if (!url) return { ok: false, error: "only https addresses without credentials are opened" };
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
