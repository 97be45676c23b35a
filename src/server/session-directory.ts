import { statSync } from "node:fs";
import { isAbsolute } from "node:path";
import { ProtocolError } from "../protocol/codes.ts";

/** A session's directory must be an absolute path to a directory on the server; refused otherwise. */
export function checkDirectory(cwd: string): void {
	if (!isAbsolute(cwd)) throw new ProtocolError("bad_args", "cwd must be an absolute path on the server");
	if (!isDirectory(cwd)) throw new ProtocolError("bad_args", `no such directory on the server: ${cwd}`);
}

/** Whether `path` is a directory now (a session's may have been deleted or moved since it was made). */
export function isDirectory(path: string): boolean {
	try {
		return statSync(path).isDirectory();
	} catch {
		return false;
	}
}
