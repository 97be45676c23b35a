import { posix } from "node:path";
import type { Environment } from "../../env/environment.ts";

/**
 * A tool path as the model gives it: relative to the session's cwd, absolute, or `~/…` (the home directory of
 * the machine the session runs on). Paths are POSIX paths: the server and the machines it reaches are.
 */
export async function resolveToolPath(env: Environment, cwd: string, path: string): Promise<string> {
	const trimmed = path.trim().replace(/^@/, "");
	if (trimmed === "~") return env.home();
	if (trimmed.startsWith("~/")) return posix.resolve(await env.home(), trimmed.slice(2));
	return posix.isAbsolute(trimmed) ? posix.resolve(trimmed) : posix.resolve(cwd, trimmed);
}
