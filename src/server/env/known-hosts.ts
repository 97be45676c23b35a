/**
 * The server's own known-hosts file (`<data>/known_hosts`): the only host keys its SSH connections trust. A
 * key gets there when the owner accepts the fingerprints a scan found; nothing else writes it.
 */

import { readFileSync } from "node:fs";
import { writePrivateFile } from "../store/data-dir.ts";
import { spawn } from "./spawn.ts";

export const KNOWN_HOSTS_FILE = "known_hosts";

export interface HostKey {
	/** `ssh-ed25519`, `ecdsa-sha2-nistp256`… */
	readonly type: string;
	/** As ssh prints it: `SHA256:…` (base64 of the key's SHA-256, without padding). */
	readonly fingerprint: string;
	/** The known-hosts line that trusts it. */
	readonly line: string;
}

/** How a host is written in known_hosts: `host`, or `[host]:port` off port 22. */
export function hostToken(host: string, port: number): string {
	return port === 22 ? host : `[${host}]:${port}`;
}

function keyOf(token: string, type: string, blob: string): HostKey | null {
	if (!/^[A-Za-z0-9@.-]+$/.test(type) || !/^[A-Za-z0-9+/]+=*$/.test(blob)) return null;
	// Bun's hasher, not node:crypto's: that module loads Node's streams, a tenth of the server's start.
	const digest = new Bun.CryptoHasher("sha256").update(Buffer.from(blob, "base64")).digest("base64").replace(/=+$/, "");
	return { type, fingerprint: `SHA256:${digest}`, line: `${token} ${type} ${blob}` };
}

/** The keys known_hosts holds for `token` (plain entries; p2 never writes hashed ones). */
export function knownKeys(file: string, token: string): HostKey[] {
	return lines(file)
		.map((line) => line.trim().split(/\s+/))
		.filter((f) => f.length >= 3 && (f[0] ?? "").split(",").includes(token))
		.map((f) => keyOf(token, f[1]!, f[2]!))
		.filter((k): k is HostKey => k !== null);
}

function lines(file: string): string[] {
	try {
		return readFileSync(file, "utf8").split("\n");
	} catch {
		return [];
	}
}

/** Replaces what known_hosts says about `token` with `keys` (none: forgets the host). */
export function setKnownKeys(file: string, token: string, keys: readonly HostKey[]): void {
	const kept = lines(file).filter((line) => {
		const host = line.trim().split(/\s+/)[0] ?? "";
		return line.trim() !== "" && !host.split(",").includes(token);
	});
	writePrivateFile(file, `${[...kept, ...keys.map((k) => k.line)].join("\n")}\n`);
}

/** The keys the machine presents now (ssh-keyscan), to be shown to the owner before anything trusts them. */
export function scanHostKeys(host: string, port: number, timeoutSeconds = 5): Promise<HostKey[]> {
	const token = hostToken(host, port);
	return new Promise((resolve, reject) => {
		const child = spawn("ssh-keyscan", ["-T", String(timeoutSeconds), "-p", String(port), "--", host], {
			stdio: ["ignore", "pipe", "ignore"],
		});
		const out: Buffer[] = [];
		child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
		child.on("error", (error) => reject(new Error(`Could not run ssh-keyscan: ${error.message}`)));
		child.on("close", () => {
			const keys = Buffer.concat(out)
				.toString("utf8")
				.split("\n")
				.filter((l) => l.trim() && !l.startsWith("#"))
				.map((l) => l.trim().split(/\s+/))
				.filter((f) => f.length >= 3)
				.map((f) => keyOf(token, f[1]!, f[2]!))
				.filter((k): k is HostKey => k !== null);
			resolve(keys);
		});
	});
}
