import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";

export const MAX_PREFS_FILE_BYTES = 256 * 1024;

export type ReadResult =
	| { readonly kind: "text"; readonly text: string }
	| { readonly kind: "missing" }
	| { readonly kind: "problem"; readonly problem: string };

/**
 * A small regular file, read through the descriptor it was opened with: a FIFO does not block the open, a
 * device or directory is refused, and nothing past the limit is read.
 */
export function readBounded(path: string, limit = MAX_PREFS_FILE_BYTES): ReadResult {
	let fd: number;
	try {
		fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		return code === "ENOENT" || code === "ENOTDIR"
			? { kind: "missing" }
			: { kind: "problem", problem: "cannot be read" };
	}
	try {
		const stat = fstatSync(fd);
		if (!stat.isFile()) return { kind: "problem", problem: "is not a regular file" };
		if (stat.size > limit) return { kind: "problem", problem: `is larger than ${limit / 1024} KiB` };
		// Room for the size it has now and one byte more (a file that grew shows it); more only as it grows. Not
		// the limit: zeroing megabytes for a small file cost a kept UI bundle's read 15-50 ms of a start.
		let buffer = Buffer.allocUnsafe(stat.size + 1);
		let length = 0;
		for (;;) {
			if (length === buffer.length)
				buffer = Buffer.concat([buffer, Buffer.allocUnsafe(Math.min(limit + 1, length * 2) - length)]);
			const n = readSync(fd, buffer, length, buffer.length - length, null);
			if (n === 0) break;
			length += n;
			if (length > limit) return { kind: "problem", problem: `is larger than ${limit / 1024} KiB` };
		}
		return {
			kind: "text",
			text: buffer
				.subarray(0, length)
				.toString("utf8")
				.replace(/^\uFEFF/, ""),
		};
	} catch {
		return { kind: "problem", problem: "cannot be read" };
	} finally {
		closeSync(fd);
	}
}
