/** Ends this device's owner sign-in on a remote server (or every owner's), after the person's yes. */
import type { WorkerMessage } from "../../protocol/channel.ts";
import { type ActionContext, type Answer, DONE, errorText } from "./context.ts";

export async function signOutRequest<W>(
	ctx: ActionContext<W>,
	payload: Extract<WorkerMessage, { action: "signOut" }>["payload"],
): Promise<Answer> {
	const { host } = ctx;
	if (!host.signOut) return { ok: false, error: "this device's own server has no sign-in to end" };
	const { all } = payload;
	const decision = await ctx.ask({
		action: all
			? "Sign every owner out of this server (the UI asked)"
			: "Sign out of this server on this device (the UI asked)",
		facts: ["p2 asks for an owner link again afterwards."],
		preview: { kind: "none" },
		offerNever: true,
	});
	if (decision !== "yes") return { ok: false, error: decision };
	try {
		await host.signOut(all);
		return DONE;
	} catch (error) {
		host.problem(`sign out: ${errorText(error)}`);
		await ctx.notice("Not signed out", [errorText(error)]);
		return { ok: false, error: "failed" };
	}
}
