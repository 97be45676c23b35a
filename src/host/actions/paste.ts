/**
 * Ctrl+V: files copied in a file manager first (each named on the launcher's screen before it is sent), then
 * pi's order: an image (sent as a file, after a question), else the clipboard's text. One listing of the
 * clipboard for the whole paste.
 */
import {
	asBracketedPaste,
	listClipboard,
	readClipboardFiles,
	readClipboardImage,
	readClipboardText,
} from "../clipboard.ts";
import { MAX_ATTACH_BYTES } from "../local-file.ts";
import { attachFile } from "./attach.ts";
import { type ActionContext, errorText } from "./context.ts";

export async function paste<W>(ctx: ActionContext<W>): Promise<void> {
	const { host, worker } = ctx;
	const failed = (detail: string) => host.post(worker, { kind: "actionDone", action: "paste.key", ok: false, detail });
	const options = { env: host.env, platform: host.platform };
	const listed = await listClipboard(options);
	const files = await readClipboardFiles({ ...options, ...(listed ? { listed } : {}) });
	if (files.length) {
		for (const path of files) {
			if (!host.current(worker)) return;
			const outcome = await attachFile(ctx, path);
			if (outcome.kind === "attached") host.post(worker, { kind: "attached", file: outcome.file });
			else if (outcome.kind === "failed") failed("A file could not be sent");
			else return;
		}
		return;
	}
	try {
		const image = await readClipboardImage({ ...options, maxBytes: MAX_ATTACH_BYTES, ...(listed ? { listed } : {}) });
		if (image) return await pasteImage(ctx, image);
	} catch (error) {
		return failed(errorText(error));
	}
	try {
		const text = await readClipboardText(options);
		if (text && host.current(worker)) host.post(worker, { kind: "input", data: asBracketedPaste(text) });
	} catch (error) {
		failed(errorText(error));
	}
}

/** A pasted image goes to the open session as a file, once the person said yes. */
async function pasteImage<W>(ctx: ActionContext<W>, image: { bytes: Uint8Array; mimeType: string }): Promise<void> {
	const { host, worker } = ctx;
	const failed = (detail: string) => host.post(worker, { kind: "actionDone", action: "paste.key", ok: false, detail });
	const session = host.session(worker);
	if (!session) return failed("No session is open to send the image to");
	const name = `clipboard-${new Date(host.clock.now()).toISOString().replace(/[:.]/g, "-")}.${image.mimeType.split("/")[1]}`;
	const decision = await ctx.ask(
		{
			action: "Send the image on your clipboard to the server",
			facts: [
				`Type: ${image.mimeType}`,
				`Size: ${image.bytes.length.toLocaleString("en-US")} bytes`,
				`Name: ${name}`,
				`Session: ${session}`,
			],
			preview: { kind: "none" },
		},
		session,
	);
	if (decision !== "yes") return;
	try {
		const file = await host.upload(session, name, image.bytes);
		if (host.current(worker)) host.post(worker, { kind: "attached", file });
	} catch (error) {
		host.problem(`paste: ${errorText(error)}`);
		failed("The image could not be sent");
	}
}
