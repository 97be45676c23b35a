/**
 * `p2 update`: replaces this executable with the release for its platform from a release location (what
 * `npm run release` makes: `release.json`, `SHA256SUMS` and the archives, served over https). The archive must
 * match its checksum, and the new executable must start and name its version, before the old one is replaced
 * (in one rename). This device's server, when this executable started it, is asked to make way first, and the
 * update is refused while it has a live run.
 *
 * The checksums come from the same location as the archives: they catch a damaged or cut download, not a
 * location that lies; trust is in the location (https) the person named.
 */
import { chmodSync, mkdtempSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { isRecord, own } from "../protocol/own-keys.ts";
import type { ServerInfo } from "../protocol/server-info.ts";

export class UpdateError extends Error {
	override name = "UpdateError";
}

export interface UpdateOptions {
	/** The release location: a URL of a directory (with or without its trailing slash). */
	readonly from: string;
	/** The executable to replace. */
	readonly executable: string;
	/** `linux-x64`, `darwin-arm64`, `windows-x64`… */
	readonly platform: string;
	readonly current: { readonly version: string; readonly commit: string | undefined };
	/** This device's server, if one runs and this executable started it. */
	findOwnServer(): Promise<ServerInfo | undefined>;
	/** Asks that server to make way: true when it stops, false while a run is live. */
	askToMakeWay(info: ServerInfo): Promise<boolean>;
}

export type UpdateResult =
	| { readonly kind: "current"; readonly version: string; readonly commit: string }
	| { readonly kind: "updated"; readonly version: string; readonly commit: string; readonly said: string };

const MAX_INDEX_BYTES = 64 * 1024;
const MAX_ARCHIVE_BYTES = 512 * 1024 * 1024;
const FETCH_MS = 60_000;
const VERSION = /^\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]{1,64})?$/;
const COMMIT = /^(?:[0-9a-f]{7,40}(?:-dirty)?|unknown)$/;
const ARCHIVE = /^p2-[a-z0-9-]{1,32}\.(?:tar\.gz|zip)$/;

/** This machine's platform as releases name it, or undefined where p2 is not released. */
export function releasePlatform(platform: string = process.platform, arch: string = process.arch): string | undefined {
	const os = platform === "win32" ? "windows" : platform;
	const name = `${os}-${arch}`;
	return ["linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64", "windows-x64"].includes(name) ? name : undefined;
}

/** A release location: https, or http on this machine's loopback; no credentials in it. */
export function releaseBase(from: string): URL {
	let url: URL;
	try {
		url = new URL(from);
	} catch {
		throw new UpdateError(`${from} is not an address`);
	}
	const loopback = ["127.0.0.1", "[::1]", "localhost"].includes(url.hostname);
	if (url.protocol !== "https:" && !(url.protocol === "http:" && loopback)) {
		throw new UpdateError(`a release location must be https (${url.protocol} given)`);
	}
	if (url.username || url.password) throw new UpdateError("a release location may not hold credentials");
	if (!url.pathname.endsWith("/")) url.pathname += "/";
	url.search = "";
	url.hash = "";
	return url;
}

async function download(base: URL, file: string, maxBytes: number): Promise<Uint8Array> {
	const url = new URL(file, base);
	let response: Response;
	try {
		response = await fetch(url, { redirect: "follow", signal: AbortSignal.timeout(FETCH_MS) });
	} catch (error) {
		throw new UpdateError(`${url.href}: ${error instanceof Error ? error.message : String(error)}`);
	}
	// A redirect may lead to another host (a download service), never off https.
	const landed = new URL(response.url || url.href);
	if (landed.protocol !== "https:" && landed.origin !== base.origin) {
		await response.body?.cancel();
		throw new UpdateError(`${url.href} was redirected off https`);
	}
	if (!response.ok) {
		await response.body?.cancel();
		throw new UpdateError(`${url.href}: answered ${response.status}`);
	}
	const chunks: Uint8Array[] = [];
	let size = 0;
	if (response.body) {
		for await (const chunk of response.body) {
			size += chunk.byteLength;
			if (size > maxBytes) throw new UpdateError(`${url.href} is larger than ${maxBytes} bytes`);
			chunks.push(chunk);
		}
	}
	return Bun.concatArrayBuffers(chunks, Number.POSITIVE_INFINITY, true);
}

/** `sha256sum`'s lines: a checksum, two spaces, a file name. */
export function parseSums(text: string): Map<string, string> {
	const sums = new Map<string, string>();
	for (const line of text.split("\n")) {
		if (line.trim() === "") continue;
		const match = /^([0-9a-f]{64}) [ *](\S+)$/.exec(line);
		if (!match) throw new UpdateError("SHA256SUMS has a line that is not a checksum and a file name");
		sums.set(match[2]!, match[1]!);
	}
	return sums;
}

function sha256(bytes: Uint8Array): string {
	return new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
}

function verified(bytes: Uint8Array, file: string, sums: Map<string, string>): Uint8Array {
	const expected = sums.get(file);
	if (!expected) throw new UpdateError(`SHA256SUMS does not list ${file}`);
	if (sha256(bytes) !== expected) throw new UpdateError(`${file} does not match its checksum; nothing was changed`);
	return bytes;
}

export function parseRelease(data: unknown): { version: string; commit: string; archives: Map<string, string> } {
	if (!isRecord(data)) throw new UpdateError("release.json is not an object");
	const version = own(data, "version");
	const commit = own(data, "commit");
	const archives = own(data, "archives");
	if (typeof version !== "string" || !VERSION.test(version)) throw new UpdateError("release.json has no valid version");
	if (typeof commit !== "string" || !COMMIT.test(commit)) throw new UpdateError("release.json has no valid commit");
	if (!isRecord(archives)) throw new UpdateError("release.json lists no archives");
	const byPlatform = new Map<string, string>();
	for (const platform of Object.keys(archives)) {
		const name = own(archives, platform);
		if (typeof name !== "string" || !ARCHIVE.test(name)) throw new UpdateError("release.json names an archive badly");
		byPlatform.set(platform, name);
	}
	return { version, commit, archives: byPlatform };
}

/** The executable inside an archive: the one file named `p2` (`p2.exe` on Windows) at its root. */
async function unpack(bytes: Uint8Array, archive: string, windows: boolean, work: string): Promise<Uint8Array> {
	const name = windows ? "p2.exe" : "p2";
	if (archive.endsWith(".tar.gz")) {
		const files = await new Bun.Archive(bytes).files();
		const file = files.get(name);
		if (!file) throw new UpdateError(`${archive} holds no ${name}`);
		return file.bytes();
	}
	// Windows' own tar (bsdtar) reads a zip.
	const zip = join(work, archive);
	writeFileSync(zip, bytes);
	const done = Bun.spawnSync(["tar", "-xf", zip, "-C", work, name], { stdout: "pipe", stderr: "pipe" });
	if (done.exitCode !== 0) throw new UpdateError(`${archive} could not be unpacked: ${done.stderr.toString().trim()}`);
	return Bun.file(join(work, name)).bytes();
}

export async function updateExecutable(options: UpdateOptions): Promise<UpdateResult> {
	const base = releaseBase(options.from);
	const sums = parseSums(new TextDecoder().decode(await download(base, "SHA256SUMS", MAX_INDEX_BYTES)));
	let parsed: unknown;
	try {
		parsed = JSON.parse(
			new TextDecoder().decode(verified(await download(base, "release.json", MAX_INDEX_BYTES), "release.json", sums)),
		);
	} catch (error) {
		if (error instanceof UpdateError) throw error;
		throw new UpdateError("release.json is not JSON");
	}
	const release = parseRelease(parsed);
	if (release.version === options.current.version && release.commit === options.current.commit) {
		return { kind: "current", version: release.version, commit: release.commit };
	}
	const archive = release.archives.get(options.platform);
	if (!archive) throw new UpdateError(`the release has no executable for ${options.platform}`);
	const bytes = verified(await download(base, archive, MAX_ARCHIVE_BYTES), archive, sums);

	const dir = dirname(options.executable);
	const work = mkdtempSync(join(tmpdir(), "p2-update-"));
	const windows = options.platform.startsWith("windows");
	const incoming = join(dir, `.p2-update-${process.pid}${windows ? ".exe" : ""}`);
	try {
		const executable = await unpack(bytes, archive, windows, work);
		try {
			writeFileSync(incoming, executable, { mode: 0o755 });
			chmodSync(incoming, statSync(options.executable).mode & 0o777);
		} catch (error) {
			throw new UpdateError(`${dir} cannot be written: ${error instanceof Error ? error.message : String(error)}`);
		}
		const said = Bun.spawnSync([incoming, "--version"], { stdout: "pipe", stderr: "pipe", timeout: 60_000 });
		if (said.exitCode !== 0) throw new UpdateError("the new executable did not start here; nothing was changed");
		const server = await options.findOwnServer();
		if (server && !(await options.askToMakeWay(server))) {
			throw new UpdateError(
				"this device's server is running a live run (or did not answer); p2 was not updated: try again once it is idle",
			);
		}
		if (windows) renameSync(options.executable, `${options.executable}.old`);
		renameSync(incoming, options.executable);
		return { kind: "updated", version: release.version, commit: release.commit, said: said.stdout.toString().trim() };
	} finally {
		rmSync(incoming, { force: true });
		rmSync(work, { recursive: true, force: true });
	}
}
