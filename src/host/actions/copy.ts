/** Text from the UI to this computer's clipboard: after the person's own mouse gesture, or on a yes. */
import type { WorkerMessage } from "../../protocol/channel.ts";
import { copyToClipboard } from "../clipboard.ts";
import { type ActionContext, type ActionsHost, type Answer, DONE, errorText } from "./context.ts";

export function copyText<W>(host: ActionsHost<W>, text: string): Promise<"native" | "terminal"> {
	return copyToClipboard(text, { env: host.env, platform: host.platform, write: host.write });
}

/** pi-tui's copy on select: no screen, the person's own gesture is the consent, and only just after it. */
export async function copySelection<W>(
	host: ActionsHost<W>,
	payload: Extract<WorkerMessage, { action: "copy.selection" }>["payload"],
): Promise<Answer> {
	if (!host.selectionGesture()) return { ok: false, error: "denied" };
	await copyText(host, payload.text);
	return DONE;
}

export async function copyRequest<W>(
	ctx: ActionContext<W>,
	payload: Extract<WorkerMessage, { action: "copy" }>["payload"],
): Promise<Answer> {
	const { text, label } = payload;
	if (!text) return { ok: false, error: "nothing to copy" };
	const decision = await ctx.ask({
		action: "Copy to this computer's clipboard (the UI asked)",
		facts: label ? [`What (server-reported): ${label}`] : [],
		preview: { kind: "text", text },
		offerNever: true,
	});
	if (decision !== "yes") return { ok: false, error: decision };
	try {
		await copyText(ctx.host, text);
		return DONE;
	} catch (error) {
		await ctx.notice("Nothing was copied", [errorText(error)]);
		return { ok: false, error: "failed" };
	}
}
