import { homedir } from "node:os";
import { isAbsolute, resolve } from "node:path";

/** A tool path as the model gives it: relative to the session's cwd, absolute, or `~/…`. */
export function resolveToolPath(cwd: string, path: string): string {
	const trimmed = path.trim().replace(/^@/, "");
	if (trimmed === "~") return homedir();
	if (trimmed.startsWith("~/")) return resolve(homedir(), trimmed.slice(2));
	return isAbsolute(trimmed) ? resolve(trimmed) : resolve(cwd, trimmed);
}
