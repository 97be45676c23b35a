import { createInterface } from "node:readline/promises";
import type { LauncherConfig } from "./config.ts";
import type { LaunchTarget } from "./launcher.ts";
import { checkOwnerCookie, cookieHeader, redeemOwnerLink, SignInError } from "./sign-in.ts";
import { TransportError } from "./trusted-http.ts";

async function ask(question: string): Promise<string | null> {
	const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: process.stdin.isTTY });
	try {
		return (await rl.question(question)).trim();
	} catch {
		return null;
	} finally {
		rl.close();
	}
}

/**
 * A remote server as the owner: the stored cookie if `/owner/check` accepts it, else an owner link (given on
 * the command line or pasted at the prompt). Returns null when the person gives up (empty line).
 */
export async function signInRemote(
	config: LauncherConfig,
	origin: string,
	ownerLink: string | undefined,
): Promise<LaunchTarget | null> {
	const stored = config.get(origin).cookie;
	if (stored && !ownerLink) {
		if (await checkOwnerCookie(origin, stored)) return ownerTarget(config, origin);
		config.update(origin, ({ cookie: _, ...rest }) => rest);
	}
	let link = ownerLink;
	for (;;) {
		if (!link) {
			const answer = await ask(`Sign in to ${origin}: paste an owner link (empty to quit): `);
			if (!answer) return null;
			link = answer;
		}
		try {
			await redeemOwnerLink(config, link, origin);
			return ownerTarget(config, origin);
		} catch (error) {
			if (!(error instanceof SignInError || error instanceof TransportError)) throw error;
			console.error(error.message);
			link = undefined;
		}
	}
}

function ownerTarget(config: LauncherConfig, origin: string): LaunchTarget {
	return {
		kind: "owner",
		origin: () => origin,
		credentials: () => {
			const cookie = config.get(origin).cookie;
			return cookie ? cookieHeader(cookie) : {};
		},
	};
}

export function forgetOwnerCookie(config: LauncherConfig, origin: string): void {
	config.update(origin, ({ cookie: _, ...rest }) => rest);
}
