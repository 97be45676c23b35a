import { createInterface } from "node:readline/promises";
import { guestName } from "../protocol/share-link.ts";
import type { LauncherConfig } from "./config.ts";
import { checkGuestCookie, forgetGuestCookie, guestCookieHeader, isJoinLink, redeemJoinLink } from "./join.ts";
import type { LaunchTarget } from "./launch-target.ts";
import { checkOwnerCookie, cookieHeader, redeemOwnerLink, SignInError } from "./sign-in.ts";
import { TransportError } from "./trusted-http.ts";
import { terminalLine } from "./visible-text.ts";

async function askLine(question: string): Promise<string | null> {
	const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: process.stdin.isTTY });
	try {
		return (await rl.question(question)).trim();
	} catch {
		return null;
	} finally {
		rl.close();
	}
}

type Ask = (question: string) => Promise<string | null>;

/** One line, controls stripped, at most 40 characters; asked again while empty. Null: the person gave up (EOF). */
async function askName(ask: Ask): Promise<string | null> {
	for (;;) {
		const answer = await ask("Your name in this session (others see it; it is not verified): ");
		if (answer === null) return null;
		const name = guestName(answer);
		if (name) return name;
	}
}

export interface SignInOptions {
	readonly ownerLink?: string;
	/** `--join <link>`: join as a guest for this run, even where an owner cookie is stored. */
	readonly joinLink?: string;
	/** The prompt's words when nothing stored admits us. */
	readonly prompt?: string;
	/** Go straight to the prompt (the stored cookie was just refused). */
	readonly skipStored?: boolean;
	/** How a question is put to the person (a line on the terminal). */
	readonly ask?: Ask;
	readonly say?: (line: string) => void;
}

export const ENDED_PROMPT = "Paste a new share link to join again (empty to quit): ";

/**
 * A remote server: a link given on the command line, else the stored owner cookie if `/owner/check` accepts
 * it, else the stored guest cookie if the server still admits it ("This share has ended." when not), else the
 * prompt, which takes an owner link or a share link. Returns null when the person gives up (empty line).
 */
export async function signInRemote(
	config: LauncherConfig,
	origin: string,
	options: SignInOptions = {},
): Promise<LaunchTarget | null> {
	const ask = options.ask ?? askLine;
	const say = options.say ?? ((line: string) => console.log(terminalLine(line)));
	let link = options.joinLink ?? options.ownerLink;
	if (!link && !options.skipStored) {
		const stored = config.get(origin);
		if (stored.cookie) {
			if (await checkOwnerCookie(origin, stored.cookie)) return ownerTarget(config, origin);
			config.update(origin, ({ cookie: _, ...rest }) => rest);
		}
		if (stored.guest) {
			if ((await checkGuestCookie(origin, stored.guest.cookie)) === "ok") return guestTarget(config, origin);
			forgetGuestCookie(config, origin);
			say("This share has ended.");
		}
	}
	for (;;) {
		if (!link) {
			const answer = await ask(
				options.prompt ?? `Sign in to ${origin}: paste an owner link or a share link (empty to quit): `,
			);
			if (!answer) return null;
			link = answer;
		}
		try {
			if (isJoinLink(link)) {
				const name = await askName(ask);
				if (name === null) return null;
				await redeemJoinLink(config, link, name, origin);
				return guestTarget(config, origin);
			}
			await redeemOwnerLink(config, link, origin);
			return ownerTarget(config, origin);
		} catch (error) {
			if (!(error instanceof SignInError || error instanceof TransportError)) throw error;
			say(error.message);
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

/** A guest sends only the guest cookie: never the owner's cookie or a device token, even where one is stored. */
function guestTarget(config: LauncherConfig, origin: string): LaunchTarget {
	return {
		kind: "guest",
		origin: () => origin,
		credentials: () => {
			const cookie = config.get(origin).guest?.cookie;
			return cookie ? guestCookieHeader(cookie) : {};
		},
	};
}

export function forgetOwnerCookie(config: LauncherConfig, origin: string): void {
	config.update(origin, ({ cookie: _, ...rest }) => rest);
}
