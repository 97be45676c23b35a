/**
 * The TCP ports listening on the session's machine (this device or an SSH machine), read from Linux's /proc by
 * one command there: `/proc/net/tcp` and `tcp6` for sockets in the LISTEN state, and each process's open
 * descriptors for who holds which socket (only the account's own processes can be read; others' show no
 * process). What the machine prints is data: bounded, parsed line by line, names cut to 64 characters.
 */
import type { Environment } from "../../server/plugin.ts";
import type { ListeningPort } from "./contract.ts";

const MAX_BYTES = 4 * 1024 * 1024;

// One find, then shell builtins only: a program started per process would cost more than the rest together.
const SCRIPT = `[ -r /proc/net/tcp ] || { echo '@@none'; exit 0; }
echo '@@tcp'; cat /proc/net/tcp
echo '@@tcp6'; cat /proc/net/tcp6 2>/dev/null
echo '@@owners'
seen=' '
find /proc/[0-9]*/fd -maxdepth 1 -lname 'socket:*' -printf '%h %l\\n' 2>/dev/null | while read -r dir link; do
p=\${dir#/proc/}; p=\${p%/fd}; i=\${link#socket:[}; i=\${i%]}
printf 'O %s %s\\n' "$p" "$i"
case $seen in *" $p "*) ;; *) seen="$seen$p "; n=; read -r n < "/proc/$p/comm" 2>/dev/null; printf 'N %s %s\\n' "$p" "$n";; esac
done`;

const LISTEN = "0A";

function ipv4(hex: string): string {
	const bytes = hex.match(/../g) ?? [];
	return bytes
		.reverse()
		.map((b) => Number.parseInt(b, 16))
		.join(".");
}

function ipv6(hex: string): string {
	if (/^0+$/.test(hex)) return "::";
	if (hex === "00000000000000000000000001000000") return "::1";
	// Four little-endian 32-bit words.
	const words = (hex.match(/.{8}/g) ?? []).map((w) => (w.match(/../g) ?? []).reverse().join(""));
	const groups = words.join("").match(/.{4}/g) ?? [];
	return groups.map((g) => g.replace(/^0+(?=.)/, "")).join(":");
}

/** LISTEN sockets of one table: port, address and socket inode. */
export function parseProcNetTcp(text: string, v6: boolean): { port: number; address: string; inode: string }[] {
	const out: { port: number; address: string; inode: string }[] = [];
	for (const line of text.split("\n").slice(1)) {
		const fields = line.trim().split(/\s+/);
		if (fields.length < 10 || fields[3] !== LISTEN) continue;
		const [addressHex, portHex] = (fields[1] ?? "").split(":");
		if (!addressHex || !portHex) continue;
		out.push({
			port: Number.parseInt(portHex, 16),
			address: v6 ? ipv6(addressHex) : ipv4(addressHex),
			inode: fields[9] ?? "",
		});
	}
	return out;
}

/** Reads what the script printed; throws when the machine has no /proc (not Linux). */
export function parseListing(text: string, machine: string): ListeningPort[] {
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
export async function listeningPorts(env: Environment): Promise<ListeningPort[]> {
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
	const machine = env.remote ? env.name : "the server";
	if (end.ended !== "exit")
		throw new Error(`listing the ports of ${machine} ${end.ended === "timeout" ? "timed out" : "was too long"}`);
	return parseListing(Buffer.concat(chunks).toString("utf8"), machine);
}

/** The listening ports of /proc's two tables, each with the process holding its socket where it is known. */
export function portsFrom(
	tcp: string,
	tcp6: string,
	owners: ReadonlyMap<string, { pid: number; name: string | null }>,
): ListeningPort[] {
	const sockets = [...parseProcNetTcp(tcp, false), ...parseProcNetTcp(tcp6, true)];
	const seen = new Set<string>();
	const out: ListeningPort[] = [];
	for (const s of sockets) {
		const key = `${s.address}:${s.port}`;
		if (seen.has(key)) continue;
		seen.add(key);
		const owner = owners.get(s.inode);
		out.push({ port: s.port, address: s.address, pid: owner?.pid ?? null, process: owner?.name ?? null });
	}
	return out.sort((a, b) => a.port - b.port || a.address.localeCompare(b.address)).slice(0, 1000);
}
