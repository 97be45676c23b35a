/**
 * Reading a local file the person chose to send (design: the consent screen, step 7): the path as they typed it, opened without
 * following a final symlink and without blocking on a FIFO, checked on the open descriptor (a regular file,
 * within the limit), and read only through that descriptor.
 */
import { closeSync, constants, fstatSync, mkdirSync, openSync, readSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { basename, isAbsolute, join, resolve } from "node:path";

export const MAX_ATTACH_BYTES = 25 * 1024 * 1024;

/** `~/x`, `file:///x`, quotes and backslash escapes (a dropped path), relative to the launcher's directory. */
export function resolveLocalPath(text: string, cwd: string, home = homedir()): string {
	let path = text.trim();
	if ((path.startsWith('"') && path.endsWith('"')) || (path.startsWith("'") && path.endsWith("'")))
		path = path.slice(1, -1);
	if (path.startsWith("file://")) path = decodeURIComponent(new URL(path).pathname);
	else path = path.replace(/\\(.)/g, "$1");
	if (path === "~" || path.startsWith("~/")) path = home + path.slice(1);
	return isAbsolute(path) ? path : resolve(cwd, path);
}

export interface OpenedFile {
	readonly path: string;
	readonly name: string;
	readonly size: number;
	read(): Uint8Array;
	close(): void;
}

export function openLocalFile(path: string): OpenedFile {
	let fd: number;
	try {
		fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (code === "ELOOP") throw new Error("is a symbolic link; name the file it points to");
		if (code === "ENOENT") throw new Error("does not exist");
		if (code === "EACCES") throw new Error("cannot be read (permission denied)");
		throw new Error("cannot be opened");
	}
	const stat = fstatSync(fd);
	if (!stat.isFile()) {
		closeSync(fd);
		throw new Error(stat.isDirectory() ? "is a directory" : "is not a regular file");
	}
	if (stat.size > MAX_ATTACH_BYTES) {
		closeSync(fd);
		throw new Error(`is larger than ${MAX_ATTACH_BYTES / 1024 / 1024} MiB`);
	}
	return {
		path,
		name: basename(path),
		size: stat.size,
		read() {
			const buffer = Buffer.alloc(Math.min(stat.size, MAX_ATTACH_BYTES) + 1);
			let length = 0;
			for (;;) {
				const n = readSync(fd, buffer, length, buffer.length - length, null);
				if (n === 0) break;
				length += n;
				// A file that grew past the limit while being read is refused, not cut.
				if (length > MAX_ATTACH_BYTES) throw new Error(`grew larger than ${MAX_ATTACH_BYTES / 1024 / 1024} MiB`);
				if (length === buffer.length) throw new Error("changed while it was read");
			}
			return buffer.subarray(0, length);
		},
		close() {
			closeSync(fd);
		},
	};
}

/** A name to save a server's file under: its last part, no controls, no leading dots, at most 200 characters. */
export function saveName(name: string): string {
	const base = (name.split(/[\\/]/).at(-1) ?? "")
		.replace(/[\p{Cc}\p{Cf}<>:"|?*]/gu, "")
		.replace(/^\.+/, "")
		.trim();
	return base.slice(0, 200) || "download";
}

/**
 * Writes a new file in the folder without replacing anything: `name`, then `name (1).ext`, `name (2).ext`…
 * (each opened with O_EXCL). Returns the path written.
 */
export function saveNew(folder: string, name: string, bytes: Uint8Array): string {
	mkdirSync(folder, { recursive: true, mode: 0o700 });
	const dot = name.lastIndexOf(".");
	const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ""];
	for (let n = 0; n < 1000; n++) {
		const path = join(folder, n ? `${stem} (${n})${ext}` : name);
		try {
			writeFileSync(path, bytes, { flag: "wx", mode: 0o600 });
			return path;
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
		}
	}
	throw new Error("too many files with that name in the download folder");
}
