import { statSync } from "node:fs";
import { isAbsolute } from "node:path";
import { ProtocolError } from "../protocol/codes.ts";

/** A session's directory must be an absolute path to a directory on the server; refused otherwise. */
export function checkDirectory(cwd: string): void {
	if (!isAbsolute(cwd)) throw new ProtocolError("bad_args", "cwd must be an absolute path on the server");
	let isDir = false;
	try {
		isDir = statSync(cwd).isDirectory();
	} catch {
		isDir = false;
	}
	if (!isDir) throw new ProtocolError("bad_args", `no such directory on the server: ${cwd}`);
}
