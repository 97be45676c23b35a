/**
 * A local file to the session on screen (`/attach`, the launcher's picker, files copied in a file manager):
 * opened and checked by the launcher, named on its screen, uploaded on a yes. The worker learns the server's
 * record of the file, or that nothing was sent: never the path, nor whether a file exists (that detail is the
 * launcher's notice).
 */
import type { WorkerMessage } from "../../protocol/channel.ts";
import { type OpenedFile, openLocalFile, resolveLocalPath } from "../local-file.ts";
import {
	type ActionContext,
	type Answer,
	type AttachedFile,
	CANCELLED,
	DECLINED,
	errorText,
	FAILED,
} from "./context.ts";

export type AttachOutcome =
	| { readonly kind: "attached"; readonly file: AttachedFile }
	| { readonly kind: "declined" | "cancelled" | "failed" };

const NOT_SENT = "The file was not sent";

export async function attachFile<W>(ctx: ActionContext<W>, typed: string): Promise<AttachOutcome> {
	const { host, worker } = ctx;
	const session = host.session(worker);
	if (!session) {
		await ctx.notice(NOT_SENT, ["No session is open to send it to."]);
		return { kind: "declined" };
	}
	const path = resolveLocalPath(typed, host.cwd);
	let file: OpenedFile;
	try {
		file = openLocalFile(path);
	} catch (error) {
		// What is on this computer is the launcher's to tell: the worker hears only that nothing was sent.
		await ctx.notice(NOT_SENT, [`${path} ${errorText(error)}`]);
		return { kind: stillAsked(ctx, session) ? "declined" : "cancelled" };
	}
	try {
		const decision = await ctx.ask(
			{
				action: "Send a file from this computer to the server (the UI asked)",
				facts: [
					`File: ${file.path}`,
					`Size: ${file.size.toLocaleString("en-US")} bytes`,
					`Session: ${session}`,
					"The server keeps the file and the model may read it.",
				],
				preview: { kind: "none" },
				offerNever: true,
			},
			session,
		);
		if (decision !== "yes") return { kind: decision };
		const attached = await host.upload(session, file.name, file.read());
		return host.current(worker) ? { kind: "attached", file: attached } : { kind: "cancelled" };
	} catch (error) {
		host.problem(`attach: ${errorText(error)}`);
		await ctx.notice(NOT_SENT, [`${file.path}: ${errorText(error)}`]);
		return { kind: stillAsked(ctx, session) ? "failed" : "cancelled" };
	} finally {
		file.close();
	}
}

/** The worker that asked is still on screen, showing the session it asked for. */
function stillAsked<W>(ctx: ActionContext<W>, session: string): boolean {
	return ctx.host.current(ctx.worker) && ctx.host.session(ctx.worker) === session;
}

/** `attach` from the UI: a path it names (the person typed it), or the launcher's own picker when none. */
export async function attachRequest<W>(
	ctx: ActionContext<W>,
	payload: Extract<WorkerMessage, { action: "attach" }>["payload"],
): Promise<Answer> {
	const { host, worker } = ctx;
	let typed = payload.path;
	if (!typed.trim()) {
		// The launcher's own picker, which the worker never sees.
		const picked = await host.pickFile(host.cwd);
		host.redraw();
		if (!picked) return DECLINED;
		typed = picked;
	}
	if (!host.current(worker)) return CANCELLED;
	const outcome = await attachFile(ctx, typed);
	switch (outcome.kind) {
		case "attached":
			return { ok: true, attached: outcome.file };
		case "declined":
			return DECLINED;
		case "cancelled":
			return CANCELLED;
		case "failed":
			return FAILED;
	}
}
