/**
 * The TCP ports listening on this machine, read from Linux's /proc (no command is run): `/proc/net/tcp` and
 * `tcp6` for sockets in the LISTEN state, and each process's open descriptors for who holds which socket
 * (only the server's own user's processes can be read; others' show no process).
 */
import { existsSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import type { ListeningPort } from "./contract.ts";

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

/** Socket inode → the process holding it, for the processes this user may read. */
function socketOwners(proc: string): Map<string, { pid: number; name: string | null }> {
	const owners = new Map<string, { pid: number; name: string | null }>();
	for (const entry of readdirSync(proc)) {
		if (!/^\d+$/.test(entry)) continue;
		let fds: string[];
		try {
			fds = readdirSync(`${proc}/${entry}/fd`);
		} catch {
			continue;
		}
		let name: string | null | undefined;
		for (const fd of fds) {
			let target: string;
			try {
				target = readlinkSync(`${proc}/${entry}/fd/${fd}`);
			} catch {
				continue;
			}
			const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
			if (!inode) continue;
			if (name === undefined) {
				try {
					name = readFileSync(`${proc}/${entry}/comm`, "utf8").trim().slice(0, 64);
				} catch {
					name = null;
				}
			}
			owners.set(inode, { pid: Number(entry), name });
		}
	}
	return owners;
}

/** The listening TCP ports, by port; throws where /proc is not there (not Linux). */
export function listeningPorts(proc = "/proc"): ListeningPort[] {
	if (!existsSync(`${proc}/net/tcp`)) throw new Error("listing ports needs Linux's /proc on the server");
	const tcp6 = existsSync(`${proc}/net/tcp6`) ? readFileSync(`${proc}/net/tcp6`, "utf8") : "";
	return portsFrom(readFileSync(`${proc}/net/tcp`, "utf8"), tcp6, socketOwners(proc));
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
