/** PNG files for the image tests, built byte by byte: honest ones, and ones that lie. */
import { crc32, deflateSync } from "node:zlib";

function chunk(type: string, data: Uint8Array): Buffer {
	const head = Buffer.alloc(8);
	head.writeUInt32BE(data.length, 0);
	head.write(type, 4, "ascii");
	const crc = Buffer.alloc(4);
	crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
	return Buffer.concat([head, data, crc]);
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * An RGBA PNG of `width`×`height`. `claim` writes other sides into its header (its checksum still matches), with
 * the pixel data of the real size: a file that lies about what it holds.
 */
export function png(width: number, height: number, claim?: { width: number; height: number }): Buffer {
	const header = Buffer.alloc(13);
	header.writeUInt32BE(claim?.width ?? width, 0);
	header.writeUInt32BE(claim?.height ?? height, 4);
	header[8] = 8; // bit depth
	header[9] = 6; // RGBA
	const row = Buffer.alloc(1 + width * 4, 0x7f);
	row[0] = 0; // no filter
	const pixels = Buffer.concat(Array.from({ length: height }, () => row));
	return Buffer.concat([
		SIGNATURE,
		chunk("IHDR", header),
		chunk("IDAT", deflateSync(pixels)),
		chunk("IEND", new Uint8Array()),
	]);
}

/** A decompression bomb: a small file whose header claims `side`×`side` pixels, its data all zeros. */
export function bombPng(side: number): Buffer {
	const header = Buffer.alloc(13);
	header.writeUInt32BE(side, 0);
	header.writeUInt32BE(side, 4);
	header[8] = 8;
	header[9] = 0; // greyscale: one byte a pixel
	// Only the first rows: enough to start decoding, a few KiB deflated.
	const rows = Buffer.alloc((1 + side) * Math.min(side, 256));
	return Buffer.concat([
		SIGNATURE,
		chunk("IHDR", header),
		chunk("IDAT", deflateSync(rows, { level: 9 })),
		chunk("IEND", new Uint8Array()),
	]);
}
