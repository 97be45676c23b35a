/** A file sent to the session on screen, or one of its artifacts, saved into the person's download folder after a yes. */
import type { WorkerMessage } from "../../protocol/channel.ts";
import { saveName, saveNew } from "../local-file.ts";
import { type ActionContext, type Answer, DONE, errorText } from "./context.ts";

const FILE_ID = /^[0-9a-f-]{36}$/;
/** An artifact's name as the server allows it (letters, digits, space . _ - ( )). */
const ARTIFACT_NAME = /^[\w][\w .()-]{0,99}$/;

export async function downloadRequest<W>(
	ctx: ActionContext<W>,
	payload: Extract<WorkerMessage, { action: "download" }>["payload"],
): Promise<Answer> {
	const { host, worker } = ctx;
	const { session, name, size } = payload;
	type Artifact = Extract<typeof payload, { kind: "artifact" }>;
	type File = Exclude<typeof payload, Artifact>;
	const artifact = Object.hasOwn(payload, "kind") ? (payload as Artifact) : undefined;
	const fileId = artifact ? undefined : (payload as File).id;
	// Only a file of the session on screen, fetched from the fixed route; the name is the server's word.
	if (session !== host.session(worker)) return { ok: false, error: "only files of the session on screen" };
	if (artifact && !ARTIFACT_NAME.test(artifact.name)) return { ok: false, error: "not an artifact name" };
	if (fileId !== undefined && !FILE_ID.test(fileId)) return { ok: false, error: "not a file id" };
	const file = saveName(name);
	const folder = host.downloadFolder();
	const decision = await ctx.ask(
		{
			action: artifact
				? "Save an artifact of this session on this computer (the UI asked)"
				: "Save a file from the server on this computer (the UI asked)",
			facts: [
				`Name (server-reported): ${file}`,
				...(artifact ? [`Version: ${artifact.version}`] : []),
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
		const bytes = artifact
			? await host.downloadArtifact(session, artifact.name, artifact.version)
			: await host.download(session, fileId ?? "");
		saveNew(folder, file, bytes);
		return DONE;
	} catch (error) {
		// The folder and what the system said about it stay on the launcher's screen.
		host.problem(`download: ${errorText(error)}`);
		await ctx.notice("The file was not saved", [errorText(error)]);
		return { ok: false, error: "failed" };
	}
}
