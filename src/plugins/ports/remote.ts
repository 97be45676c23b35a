/**
 * The TCP ports listening on a session's SSH machine: one command there prints /proc's two tables and which
 * process holds which socket (its user's processes), read here by the same parser as this device's. What the
 * machine prints is data: bounded, parsed line by line, names cut to 64 characters.
 */
import type { Environment } from "../../server/plugin.ts";
import type { ListeningPort } from "./contract.ts";
import { portsFrom } from "./listening.ts";

const MAX_BYTES = 4 * 1024 * 1024;

const SCRIPT = `[ -r /proc/net/tcp ] || { echo '@@none'; exit 0; }
echo '@@tcp'; cat /proc/net/tcp
echo '@@tcp6'; cat /proc/net/tcp6 2>/dev/null
echo '@@owners'
s=$(find /proc/[0-9]*/fd -maxdepth 1 -lname 'socket:*' -printf '%h %l\\n' 2>/dev/null)
printf '%s\\n' "$s" | sed -n 's#^/proc/\\([0-9]*\\)/fd socket:\\[\\([0-9]*\\)\\]$#O \\1 \\2#p'
for p in $(printf '%s\\n' "$s" | sed -n 's#^/proc/\\([0-9]*\\)/fd .*#\\1#p' | sort -u); do printf 'N %s %s\\n' "$p" "$(head -c 64 /proc/$p/comm 2>/dev/null)"; done`;

/** Reads what the script printed; throws when the machine has no /proc (not Linux). */
export function parseRemoteListing(text: string, machine: string): ListeningPort[] {
	if (/^@@none$/m.test(text)) throw new Error(`listing ports needs Linux's /proc on ${machine}`);
	const section = (name: string) => {
		const start = text.indexOf(`@@${name}\n`);
		if (start < 0) return "";
		const from = start + name.length + 3;
		const end = text.indexOf("\n@@", from);
		return text.slice(from, end < 0 ? undefined : end + 1);
	};
	const names = new Map<number, string>();
	const sockets: [string, number][] = [];
	for (const line of section("owners").split("\n")) {
		const owner = /^O (\d+) (\d+)$/.exec(line);
		if (owner) sockets.push([owner[2] as string, Number(owner[1])]);
		const name = /^N (\d+) (.*)$/.exec(line);
		if (name) names.set(Number(name[1]), (name[2] as string).slice(0, 64));
	}
	const owners = new Map<string, { pid: number; name: string | null }>();
	for (const [inode, pid] of sockets) owners.set(inode, { pid, name: names.get(pid) || null });
	return portsFrom(section("tcp"), section("tcp6"), owners);
}

/** The ports listening on `env`'s machine, asked in one command run in its home directory. */
export async function remoteListeningPorts(env: Environment): Promise<ListeningPort[]> {
	const chunks: Uint8Array[] = [];
	let bytes = 0;
	const stop = new AbortController();
	const end = await env.exec({
		command: SCRIPT,
		cwd: await env.home(),
		signal: stop.signal,
		timeoutSeconds: 20,
		onData: (chunk) => {
			bytes += chunk.byteLength;
			if (bytes > MAX_BYTES) stop.abort();
			else chunks.push(chunk);
		},
	});
	if (end.ended !== "exit")
		throw new Error(`listing the ports of ${env.name} ${end.ended === "timeout" ? "timed out" : "was too long"}`);
	return parseRemoteListing(Buffer.concat(chunks).toString("utf8"), env.name);
}
