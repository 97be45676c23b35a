import { expect, test } from "bun:test";
import { withFiles } from "../../../src/plugins/chat/attachments.ts";
import type { UploadMeta } from "../../../src/plugins/chat/uploads.ts";

const file = (name: string, mimeType: string, text: string) => {
	const bytes = new TextEncoder().encode(text);
	const meta: UploadMeta = { id: name, name, size: bytes.byteLength, mimeType, by: "device", at: 0 };
	return { meta, bytes };
};

test("a text file is folded into the message; an image goes to a model that takes images, else it is named", () => {
	const files = [
		file('notes "v2".txt', "text/plain", "line"),
		file("a.png", "image/png", "PNG"),
		file("b.bin", "application/octet-stream", "x"),
	];
	const textOnly = withFiles("look", files, { id: "m1", input: ["text"] });
	expect(textOnly.text).toBe(
		"look\n\n<file name=\"notes 'v2'.txt\">\nline\n</file>\n\n[image a.png: m1 does not take images]\n[file b.bin (1 bytes): not text; not sent to the model]",
	);
	expect(textOnly.images).toEqual([]);
	expect(textOnly.content).toBe(textOnly.text);
	const seeing = withFiles("", [files[1]!], { id: "m2", input: ["text", "image"] });
	expect(seeing.images).toEqual([
		{ type: "image", data: Buffer.from("PNG").toString("base64"), mimeType: "image/png" },
	]);
	expect(seeing.content).toEqual([{ type: "text", text: "" }, ...seeing.images]);
});
