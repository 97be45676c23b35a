/**
 * What the server's log says about runs (never their texts): a run's end, and a provider refusing its
 * credentials, which is a notice for the owner until a run of that provider works again.
 */
import type { AssistantMessage } from "@earendil-works/pi-ai";
import { ProtocolError } from "../../protocol/codes.ts";
import { errorText } from "../../protocol/errors.ts";
import type { RunOutcome, ServerContext, ServerLog } from "../../server/plugin.ts";

const AUTH_FAILURE = /\b(401|403)\b|unauthori[sz]ed|forbidden|invalid[ _-]?(api[ _-]?)?key|authentication|credentials/i;

export function isCredentialFailure(errorMessage: string | undefined): boolean {
	return errorMessage !== undefined && AUTH_FAILURE.test(errorMessage);
}

export function logRunEnd(log: ServerLog, session: string, outcome: RunOutcome, answer: AssistantMessage | null): void {
	const source = `session:${session}`;
	const provider = answer?.provider;
	log.info(source, `run ended: ${outcome}${answer ? ` (${answer.provider}/${answer.model})` : ""}`);
	if (!provider) return;
	const key = `provider.auth:${provider}`;
	if (outcome === "error" && isCredentialFailure(answer.errorMessage)) {
		const why = (answer.errorMessage ?? "").split("\n")[0]?.slice(0, 200);
		log.warn(source, `${provider} refused the server's credentials: ${why}. Sign in again with /login.`, {
			key,
			retry: "provider",
		});
	} else if (outcome === "done") {
		log.resolve(source, key, `${provider} answered`);
	}
}

/** /retry on a provider's notice: its credentials are read again (a key put in auth.json or the environment). */
export function retryProviderCredentials(ctx: ServerContext): void {
	ctx.log.onRetry("provider", async (key) => {
		const provider = key.slice(key.indexOf(":") + 1);
		await ctx.models.reload();
		const check = await ctx.models.registry.checkAuth(provider).catch(() => undefined);
		if (!check) return `${provider} has no credentials on the server now: sign in with /login.`;
		return `${provider}'s credentials were read again (${check.source ?? check.type}); the next message uses them.`;
	});
}

const OPEN_KEY = "session.open:";

/**
 * Opens a session's conversation; a failure that is not a refusal (its store cannot be opened) is a notice for
 * the owner, which /retry can try again.
 */
export function acquireOrReport<T>(ctx: ServerContext, acquire: () => T, session: string): T {
	try {
		const opened = acquire();
		ctx.log.resolve(`session:${session}`, `${OPEN_KEY}${session}`, "the session opened");
		return opened;
	} catch (error) {
		if (!(error instanceof ProtocolError)) {
			const title = ctx.catalog.get(session)?.title || session;
			ctx.log.error(`session:${session}`, `The session “${title}” could not be opened: ${errorText(error)}`, {
				key: `${OPEN_KEY}${session}`,
				retry: "session.open",
			});
		}
		throw error;
	}
}

/** /retry on a session that failed to open: its store is opened again; the person opens the session again. */
export function retrySessionOpen(ctx: ServerContext): void {
	ctx.log.onRetry("session.open", (key) => {
		const session = key.slice(OPEN_KEY.length);
		ctx.stores.get(session);
		ctx.log.resolve(`session:${session}`, key, "the session's store opened again");
		return "The session's store opens again: open the session again (/resume).";
	});
}
