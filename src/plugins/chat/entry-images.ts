/**
 * The images of a transcript entry for the terminal: their facts for the view (type and size, read from the
 * file's header, never decoded), and each one as a PNG within the launcher's limits (`image`), decoded and
 * scaled down here so that a large photo reaches the terminal as a small file.
 */
import type { ImageContent } from "@earendil-works/pi-ai";
import { MAX_IMAGE_BYTES } from "../../protocol/channel-kinds.ts";
import { type ImageFact, MAX_ENTRY_IMAGES } from "./contract.ts";
import type { StoredData } from "./view.ts";

/** Enough of the file for any header the sizes are read from (a JPEG's frame header can follow its metadata). */
const HEADER_BASE64_CHARS = 96 * 1024;
/** What the server decodes at most: the read tool takes files up to 10 MB. */
const MAX_DECODED_PIXELS = 100_000_000;
/** Widths tried for the terminal's copy, until one fits the launcher's limit. */
const DISPLAY_SIDES = [1024, 512, 256];

export function entryImages(data: StoredData): ImageContent[] {
	const images =
		data.kind === "user"
			? (data.images ?? [])
			: data.kind === "tool"
				? data.result.content.filter((c): c is ImageContent => c.type === "image")
				: [];
	return images.slice(0, MAX_ENTRY_IMAGES);
}

export function imageFacts(images: readonly ImageContent[]): ImageFact[] {
	return images.slice(0, MAX_ENTRY_IMAGES).map((image) => {
		const mimeType = typeof image.mimeType === "string" ? image.mimeType.slice(0, 100) : "image/unknown";
		const size = typeof image.data === "string" ? headerSize(image.data.slice(0, HEADER_BASE64_CHARS)) : undefined;
		return size ? { mimeType, width: size.width, height: size.height } : { mimeType };
	});
}

/** The image as a PNG (base64) no larger than the launcher draws; throws when it does not decode. */
export async function displayPng(image: ImageContent): Promise<string> {
	const bytes = Buffer.from(image.data, "base64");
	for (const side of DISPLAY_SIDES) {
		const png = await new Bun.Image(bytes, { maxPixels: MAX_DECODED_PIXELS })
			.resize(side, side, { fit: "inside", withoutEnlargement: true })
			.png()
			.bytes();
		if (png.length <= MAX_IMAGE_BYTES) return Buffer.from(png).toString("base64");
	}
	throw new Error("the image does not fit the terminal's limit");
}

type Size = { width: number; height: number };

function headerSize(base64: string): Size | undefined {
	const b = Buffer.from(base64.slice(0, base64.length - (base64.length % 4)), "base64");
	const sized = (width: number, height: number) => (width >= 1 && height >= 1 ? { width, height } : undefined);
	if (b.length >= 24 && b.readUInt32BE(0) === 0x89504e47) return sized(b.readUInt32BE(16), b.readUInt32BE(20));
	if (b.length >= 10 && b.toString("latin1", 0, 4) === "GIF8") return sized(b.readUInt16LE(6), b.readUInt16LE(8));
	if (b.length >= 30 && b.toString("latin1", 0, 4) === "RIFF" && b.toString("latin1", 8, 12) === "WEBP")
		return webpSize(b, sized);
	if (b.length >= 4 && b[0] === 0xff && b[1] === 0xd8) return jpegSize(b, sized);
	return undefined;
}

function webpSize(b: Buffer, sized: (w: number, h: number) => Size | undefined): Size | undefined {
	const chunk = b.toString("latin1", 12, 16);
	if (chunk === "VP8 ") return sized(b.readUInt16LE(26) & 0x3fff, b.readUInt16LE(28) & 0x3fff);
	if (chunk === "VP8L") {
		const bits = b.readUInt32LE(21);
		return sized((bits & 0x3fff) + 1, ((bits >> 14) & 0x3fff) + 1);
	}
	if (chunk === "VP8X") return sized(b.readUIntLE(24, 3) + 1, b.readUIntLE(27, 3) + 1);
	return undefined;
}

function jpegSize(b: Buffer, sized: (w: number, h: number) => Size | undefined): Size | undefined {
	let at = 2;
	while (at + 9 < b.length) {
		if (b[at] !== 0xff) return undefined;
		const marker = b[at + 1]!;
		// Start-of-frame markers (not DHT, JPG or DAC, which share the range).
		if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc)
			return sized(b.readUInt16BE(at + 7), b.readUInt16BE(at + 5));
		const length = b.readUInt16BE(at + 2);
		if (length < 2) return undefined;
		at += 2 + length;
	}
	return undefined;
}
