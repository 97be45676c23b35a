/** A file sent to the session on screen, saved into the person's download folder after a yes. */
import type { WorkerMessage } from "../../protocol/channel.ts";
import { saveName, saveNew } from "../local-file.ts";
import { type ActionContext, type Answer, DONE, errorText } from "./context.ts";

const FILE_ID = /^[0-9a-f-]{36}$/;

export async function downloadRequest<W>(
	ctx: ActionContext<W>,
	payload: Extract<WorkerMessage, { action: "download" }>["payload"],
): Promise<Answer> {
	const { host, worker } = ctx;
	const { session, id, name, size } = payload;
	// Only a file of the session on screen, fetched from the fixed route; the name is the server's word.
	if (session !== host.session(worker)) return { ok: false, error: "only files of the session on screen" };
	if (!FILE_ID.test(id)) return { ok: false, error: "not a file id" };
	const file = saveName(name);
	const folder = host.downloadFolder();
	const decision = await ctx.ask(
		{
			action: "Save a file from the server on this computer (the UI asked)",
			facts: [
				`Name (server-reported): ${file}`,
				`Size (server-reported): ${size.toLocaleString("en-US")} bytes`,
				`Into: ${folder} (nothing there is replaced)`,
				`Session: ${session}`,
			],
			preview: { kind: "none" },
			offerNever: true,
		},
		session,
	);
	if (decision !== "yes") return { ok: false, error: decision };
	try {
		const bytes = await host.download(session, id);
		saveNew(folder, file, bytes);
		return DONE;
	} catch (error) {
		// The folder and what the system said about it stay on the launcher's screen.
		host.problem(`download: ${errorText(error)}`);
		await ctx.notice("The file was not saved", [errorText(error)]);
		return { ok: false, error: "failed" };
	}
}
