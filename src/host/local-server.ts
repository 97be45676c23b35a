import { accessSync, constants, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { type } from "arktype";
import { BUNDLE_PATH, DEVICE_TOKEN_HEADER, SERVER_INFO_FILE, ServerInfo } from "../protocol/server-info.ts";
import { trustedFetch } from "./trusted-http.ts";

/**
 * This device's running server, if any: `server.json` in the data directory names its port and device token.
 * The file must be ours and private (0600), name a loopback origin, and the server must accept the token.
 */
export async function findLocalServer(dataDir: string): Promise<ServerInfo | undefined> {
	const path = join(dataDir, SERVER_INFO_FILE);
	let text: string;
	try {
		const info = statSync(path);
		if (!info.isFile() || info.size > 4096) return undefined;
		if ((info.mode & 0o077) !== 0 || (process.getuid && info.uid !== process.getuid())) return undefined;
		text = readFileSync(path, "utf8");
	} catch {
		return undefined;
	}
	let parsed: ServerInfo | type.errors;
	try {
		parsed = ServerInfo(JSON.parse(text));
	} catch {
		return undefined;
	}
	if (parsed instanceof type.errors) return undefined;
	if (!isLoopbackOrigin(parsed.origin, parsed.port)) return undefined;
	try {
		process.kill(parsed.pid, 0);
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "ESRCH") return undefined;
	}
	try {
		const probe = await trustedFetch({
			origin: parsed.origin,
			path: BUNDLE_PATH,
			method: "HEAD",
			headers: { [DEVICE_TOKEN_HEADER]: parsed.deviceToken },
			timeoutMs: 2000,
		});
		return probe.status === 200 ? parsed : undefined;
	} catch {
		return undefined;
	}
}

/**
 * Why this device's server cannot start in `dataDir`, in one line a person can act on, when the directory
 * itself is the reason (read-only, not writable, a file in the way); undefined when it is not.
 */
export function dataDirProblem(dataDir: string): string | undefined {
	const reason = dataDirReason(dataDir);
	if (!reason) return undefined;
	return `the data directory ${dataDir} ${reason}, and no p2 server is running for it; set P2_DATA_DIR to a writable directory`;
}

function dataDirReason(dataDir: string): string | undefined {
	// Where the server would write: the directory, or the nearest parent that exists when it is not made yet.
	let at = dataDir;
	for (;;) {
		let isDirectory: boolean;
		try {
			isDirectory = statSync(at).isDirectory();
		} catch {
			const parent = dirname(at);
			if (parent === at) return undefined;
			at = parent;
			continue;
		}
		if (!isDirectory) return at === dataDir ? "is not a directory" : `cannot be made (${at} is not a directory)`;
		break;
	}
	try {
		accessSync(at, constants.W_OK);
		return undefined;
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		const where = at === dataDir ? "" : ` (${at})`;
		if (code === "EROFS") return `is on a read-only file system${where}`;
		if (code === "EACCES" || code === "EPERM") return `is not writable${where}`;
		return undefined;
	}
}

/** `http://` on a loopback address (any of 127.0.0.0/8, or ::1) and the advertised port, nothing else. */
function isLoopbackOrigin(origin: string, port: number): boolean {
	const match = /^http:\/\/(127(?:\.\d{1,3}){3}|\[::1\]):(\d+)$/.exec(origin);
	return match !== null && Number(match[2]) === port && (match[1] === "[::1]" || isIPv4(match[1]!));
}

function isIPv4(address: string): boolean {
	return address.split(".").every((part) => Number(part) <= 255 && String(Number(part)) === part);
}
