/**
 * Files attached to a message: images go to the model when it takes images; text files are added to the
 * message (pi's file blocks); anything else is named, not sent.
 */
import type { Api, ImageContent, Model, UserMessage } from "@earendil-works/pi-ai";
import { ProtocolError } from "../../protocol/codes.ts";
import { isImage, type UploadMeta, type Uploads } from "./uploads.ts";

/** A text file larger than this is named in the message, not pasted into it. */
const MAX_TEXT_FILE = 256 * 1024;

export interface AttachedFile {
	readonly meta: UploadMeta;
	readonly bytes: Uint8Array;
}

/** The files, each uploaded to this session by this person; a refusal naming the first that is not. */
export function attachedFiles(uploads: Uploads, session: string, ids: readonly string[], by: string): AttachedFile[] {
	return ids.map((id) => {
		const file = uploads.get(session, id, by);
		if (!file) throw new ProtocolError("not_found", "an attached file is gone; attach it again");
		return file;
	});
}

/** The message's text with the files folded in, and its images; `content` is what the model is sent. */
export function withFiles(
	typed: string,
	files: readonly AttachedFile[],
	model: Pick<Model<Api>, "id" | "input">,
): { text: string; images: ImageContent[]; content: UserMessage["content"] } {
	const images: ImageContent[] = [];
	const notes: string[] = [];
	let text = typed;
	for (const { meta, bytes } of files) {
		if (isImage(meta.mimeType)) {
			if (model.input.includes("image"))
				images.push({ type: "image", data: Buffer.from(bytes).toString("base64"), mimeType: meta.mimeType });
			else notes.push(`[image ${meta.name}: ${model.id} does not take images]`);
		} else if (meta.mimeType === "text/plain" && meta.size <= MAX_TEXT_FILE) {
			text += `${text ? "\n\n" : ""}<file name="${meta.name.replace(/"/g, "'")}">\n${new TextDecoder().decode(bytes)}\n</file>`;
		} else notes.push(`[file ${meta.name} (${meta.size} bytes): not text; not sent to the model]`);
	}
	if (notes.length) text += `${text ? "\n\n" : ""}${notes.join("\n")}`;
	return { text, images, content: images.length ? [{ type: "text", text }, ...images] : text };
}
