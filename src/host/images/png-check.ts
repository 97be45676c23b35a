/**
 * The only image bytes that reach the terminal are the launcher's own: what the UI sends is checked for its size,
 * decoded for real (refused before any pixel is allocated when its header claims more pixels than allowed), and
 * encoded again as a fresh PNG. A file that lies about its size, is not a PNG, or does not decode is refused.
 */
import { MAX_IMAGE_BYTES, MAX_IMAGE_SIDE } from "../../protocol/channel-kinds.ts";
import { errorText } from "../../protocol/errors.ts";

export interface CheckedPng {
	/** The launcher's own encoding, base64. */
	readonly base64: string;
	readonly width: number;
	readonly height: number;
}

export class ImageRefused extends Error {}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The PNG in `base64` (from the UI), decoded and encoded again by the launcher; throws `ImageRefused`. */
export async function checkedPng(base64: string): Promise<CheckedPng> {
	if (base64.length > Math.ceil(MAX_IMAGE_BYTES / 3) * 4) throw new ImageRefused("the image is over its size limit");
	if (!BASE64.test(base64)) throw new ImageRefused("the image is not base64");
	const bytes = Buffer.from(base64, "base64");
	if (bytes.length > MAX_IMAGE_BYTES) throw new ImageRefused("the image is over its size limit");
	if (bytes.length < 24 || PNG_SIGNATURE.some((byte, i) => bytes[i] !== byte))
		throw new ImageRefused("the image is not a PNG");
	// The header's own claim first: a side over the limit is refused before anything is decoded.
	const claimedWidth = bytes.readUInt32BE(16);
	const claimedHeight = bytes.readUInt32BE(20);
	if (!sideFits(claimedWidth) || !sideFits(claimedHeight))
		throw new ImageRefused(
			`the image is ${claimedWidth}×${claimedHeight} pixels, over ${MAX_IMAGE_SIDE}×${MAX_IMAGE_SIDE}`,
		);
	const options = { maxPixels: MAX_IMAGE_SIDE * MAX_IMAGE_SIDE, autoOrient: false };
	try {
		const encoded = await new Bun.Image(bytes, options).png().bytes();
		const { width, height, format } = await new Bun.Image(encoded, options).metadata();
		if (format !== "png" || width !== claimedWidth || height !== claimedHeight)
			throw new ImageRefused("the image changed when it was decoded");
		return { base64: Buffer.from(encoded).toString("base64"), width, height };
	} catch (error) {
		if (error instanceof ImageRefused) throw error;
		throw new ImageRefused(`the image does not decode (${errorText(error)})`);
	}
}

function sideFits(side: number): boolean {
	return side >= 1 && side <= MAX_IMAGE_SIDE;
}
