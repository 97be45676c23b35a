/** `savePrefs`: a change to `prefs.json` the UI proposes, refused or shown as a diff and written on a yes. */
import type { WorkerMessage } from "../../protocol/channel.ts";
import { planPrefsSave } from "../prefs-save.ts";
import { type ActionContext, type Answer, DONE, errorText } from "./context.ts";

export async function savePrefsRequest<W>(
	ctx: ActionContext<W>,
	payload: Extract<WorkerMessage, { action: "savePrefs" }>["payload"],
): Promise<Answer> {
	const { host } = ctx;
	const plan = planPrefsSave(host.p2Dir, payload.patch);
	if (plan.kind === "refused") return { ok: false, error: plan.error };
	const decision = await ctx.ask({
		action: "Save display preferences (the UI asked)",
		facts: [`File: ${plan.path}`],
		preview: { kind: "diff", lines: plan.diff },
		offerNever: true,
	});
	if (decision !== "yes") return { ok: false, error: decision };
	try {
		plan.write();
	} catch (error) {
		host.problem(`prefs.json: ${errorText(error)}`);
		await ctx.notice("The preferences were not saved", [`${plan.path}: ${errorText(error)}`]);
		return { ok: false, error: "failed" };
	}
	// Read back now rather than when the watcher notices, so the answer finds it applied.
	host.preferencesChanged();
	return DONE;
}
