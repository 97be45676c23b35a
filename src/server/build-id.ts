/**
 * Which build of p2 this process is: the executable's file (its size and time, cheaply), or in development the
 * sources' sizes and times. A launcher and the server it started compare them, so development never talks to a
 * server still running older code.
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import { filesStamp } from "./files-stamp.ts";

const ROOT = join(import.meta.dir, "..", "..");

export function buildId(): string {
	if ((globalThis as { P2_EMBEDDED_BUNDLE?: string }).P2_EMBEDDED_BUNDLE) {
		const stat = statSync(process.execPath);
		return `exe:${stat.size}:${Math.round(stat.mtimeMs)}`;
	}
	return `src:${sourcesStampOnce().slice(0, 32)}`;
}

let stamp: string | undefined;

/**
 * The sources as they stand (see below), once per process: what a cache of something made from the sources
 * is keyed by when it is cheap to make again (an edit that keeps a file's size and time is not one people make).
 */
export function sourcesStampOnce(): string {
	stamp ??= sourcesStamp();
	return stamp;
}

/**
 * The sources as they stand (see `filesStamp`); the development bundle and the server's validators are cached
 * under it.
 */
export function sourcesStamp(root = ROOT): string {
	const glob = new Bun.Glob("**/*.{ts,tsx,js,json}");
	return filesStamp([
		join(root, "package-lock.json"),
		...[...glob.scanSync({ cwd: join(root, "src"), onlyFiles: true, absolute: true })].sort(),
	]);
}
