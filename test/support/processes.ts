import { readFileSync } from "node:fs";

/** Whether process `pid` has ended: it no longer exists, or it is a zombie nobody has reaped yet. */
export function processEnded(pid: number): boolean {
	try {
		process.kill(pid, 0);
	} catch {
		return true;
	}
	try {
		// /proc/<pid>/stat: "pid (name) state …"; Z and X are ended. Without /proc a live pid is taken as running.
		const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
		return /^\d+ \(.*\) [ZX]/s.test(stat);
	} catch {
		return false;
	}
}
