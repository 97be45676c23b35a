/**
 * Where a session's tools run: this device, or a machine reached over SSH. Every tool, `!` command, file
 * completion and workspace query goes through one `Environment`, so a feature works the same on both.
 */
import { ProtocolError } from "../../protocol/codes.ts";
import { errorText } from "../../protocol/errors.ts";

/** What a path is on the target machine; symbolic links are followed, as `stat` does. */
export interface PathInfo {
	readonly kind: "file" | "directory" | "other";
	readonly size: number;
}

/** One entry of a directory listing. A symbolic link is never a directory here (walks do not follow it). */
export interface DirEntry {
	readonly name: string;
	readonly dir: boolean;
	/** A symbolic link (to anything, or to nothing). */
	readonly link: boolean;
	/** A file's size in bytes when sizes were asked for; else, and for folders and links, 0. */
	readonly size: number;
}

/** A file operation that failed for a reason the target machine gave, named as Node names it (`ENOENT`…). */
export class EnvFileError extends Error {
	readonly code: string;
	constructor(code: string, message: string) {
		super(message);
		this.code = code;
	}
}

/** The machine could not be reached, refused us, or the connection broke during the call. */
export class EnvConnectionError extends Error {
	/** Set when the host key is what stopped the connection: the owner has to accept one first. */
	readonly hostKey: "unknown" | "changed" | null;
	constructor(message: string, hostKey: "unknown" | "changed" | null = null) {
		super(message);
		this.hostKey = hostKey;
	}
}

export interface ExecRequest {
	readonly command: string;
	/** An absolute directory on the target machine. */
	readonly cwd: string;
	readonly signal?: AbortSignal;
	readonly timeoutSeconds?: number;
	/** stdout and stderr as they come, interleaved. */
	readonly onData: (chunk: Uint8Array) => void;
}

export interface ExecEnd {
	readonly exitCode: number | null;
	readonly ended: "exit" | "aborted" | "timeout";
}

/** How a program run by `run` is bounded. */
export interface RunOptions {
	/** An absolute directory on the target machine. */
	readonly cwd: string;
	/** Its stdin (git reads NUL-separated names there); none: no stdin. */
	readonly input?: string;
	readonly maxBytes: number;
	readonly timeoutMs: number;
}

/** A program's end, as `run` reports it. */
export interface Ran {
	/** The exit code (127: the machine has no such program); null when it was stopped (time or output ran out). */
	readonly code: number | null;
	/** Its stdout as UTF-8 (stderr is dropped), up to maxBytes. */
	readonly out: string;
	/** The output reached its bound: what came is kept, the program was stopped. */
	readonly full: boolean;
	readonly timedOut: boolean;
}

/** A TCP connection from here to a port of the target machine's loopback. */
export interface TcpConnection {
	/** Sends bytes; what the machine has not taken yet is bounded: past the bound the connection closes. */
	write(bytes: Uint8Array): void;
	close(): void;
}

export interface TcpHandlers {
	readonly data: (bytes: Uint8Array) => void;
	/** The connection ended (either side, or it never opened); called once. */
	readonly closed: () => void;
}

/** An interactive shell in a pseudo-terminal (the terminal panel's). */
export interface TerminalRequest {
	/** An absolute directory on the target machine; the shell starts in the home directory when it is gone. */
	readonly cwd: string;
	readonly cols: number;
	readonly rows: number;
	/** What the shell writes, as it comes. */
	readonly onData: (chunk: Uint8Array) => void;
	/** The shell ended (its exit code, null when a signal or a broken connection ended it). Called once. */
	readonly onExit: (exitCode: number | null) => void;
}

/** A running shell: typing goes in, the window's size changes, and it can be ended. */
export interface TerminalProcess {
	write(data: string): void;
	resize(cols: number, rows: number): void;
	/** Hangs up (SIGHUP, as closing a terminal window does), then kills what is left shortly after. */
	end(): void;
}

export interface Environment {
	/** `local` for this device, else the name in envs.json. */
	readonly name: string;
	readonly remote: boolean;
	/** The home directory of the account the tools run as. */
	home(): Promise<string>;
	/** null when nothing is there. */
	stat(path: string): Promise<PathInfo | null>;
	readFile(path: string): Promise<Buffer>;
	/** Creates missing parent directories. */
	writeFile(path: string, data: string | Uint8Array): Promise<void>;
	/** The entries of a folder; `sizes`: each file's size too (one more lookup per file on this device). */
	listDirectory(path: string, options?: { readonly sizes?: boolean }): Promise<DirEntry[]>;
	/** The canonical absolute path of anything (symbolic links resolved); null when nothing is there. */
	realPath(path: string): Promise<string | null>;
	/** The canonical absolute path of a directory (`~` expanded, symbolic links resolved); EnvFileError if none. */
	directory(path: string): Promise<string>;
	/** Runs `command` with bash in its own process group; abort and timeout end the whole group. */
	exec(request: ExecRequest): Promise<ExecEnd>;
	/**
	 * Runs a program by argv (no shell), in the C locale, git without prompts or optional locks; stdout only,
	 * bounded in bytes and time. For queries whose answer is a program's output (git, rg, grep).
	 */
	run(argv: readonly string[], options: RunOptions): Promise<Ran>;
	/**
	 * Calls `onChange` after each burst of changes anywhere under `dir`, until the returned function stops it.
	 * null: this machine's files cannot be watched from here (SSH); the caller reads again when it knows they
	 * may have changed (a run or command there ended). A directory that cannot be watched just never calls.
	 */
	watch(dir: string, onChange: () => void): (() => void) | null;
	/** A TCP connection to `port` on the machine's loopback `host` (127.0.0.1 or ::1). */
	connectTcp(host: string, port: number, handlers: TcpHandlers): TcpConnection;
	/** The account's shell, interactive, in a pseudo-terminal of the given size. */
	openTerminal(request: TerminalRequest): TerminalProcess;
}

/** A program's stdout kept up to `maxBytes` (`run`'s bound): `add` says whether the bound was reached. */
export class BoundedOutput {
	readonly #chunks: Uint8Array[] = [];
	#bytes = 0;
	#full = false;

	constructor(readonly maxBytes: number) {}

	get full(): boolean {
		return this.#full;
	}

	add(chunk: Uint8Array): boolean {
		if (this.#full) return true;
		const room = this.maxBytes - this.#bytes;
		this.#chunks.push(chunk.byteLength > room ? chunk.subarray(0, room) : chunk);
		this.#bytes += Math.min(room, chunk.byteLength);
		if (this.#bytes >= this.maxBytes) this.#full = true;
		return this.#full;
	}

	text(): string {
		return new TextDecoder().decode(Buffer.concat(this.#chunks));
	}
}

/** What a TCP connection holds at most that the machine has not taken yet. */
export const MAX_TCP_PENDING = 4 * 1024 * 1024;

/** The sentence a failed file operation shows, from its code. */
export function fileErrorText(code: string, path: string): string {
	switch (code) {
		case "ENOENT":
			return `No such file or directory: ${path}`;
		case "ENOTDIR":
			return `Not a directory: ${path}`;
		case "EISDIR":
			return `Is a directory: ${path}`;
		case "EACCES":
		case "EPERM":
			return `Permission denied: ${path}`;
		default:
			return `${code}: ${path}`;
	}
}

/** The error code of a failed file operation, local (Node's) or remote (EnvFileError). */
export function errorCode(error: unknown): string | undefined {
	if (error instanceof EnvFileError) return error.code;
	const code = (error as { code?: unknown } | null)?.code;
	return typeof code === "string" ? code : undefined;
}

/**
 * A failure to reach `path` on environment `env`, as the person reads it: an unreachable machine is
 * `unavailable`, a file problem (missing, not a directory, denied) is the request's, anything else names the
 * machine.
 */
export function pathProblem(error: unknown, env: string, path: string): ProtocolError {
	if (error instanceof EnvConnectionError) return new ProtocolError("unavailable", error.message);
	const code = errorCode(error);
	const where = env === "local" ? "" : ` on ${env}`;
	if (code) return new ProtocolError("bad_args", `${fileErrorText(code, path)}${where}`);
	return new ProtocolError("unavailable", `${env}: ${errorText(error).slice(0, 500)}`);
}

/** `~` and `~/rest` joined to the machine's home; anything else as given. */
export function expandHome(path: string, home: string): string {
	if (path === "~") return home;
	if (path.startsWith("~/")) return `${home.replace(/\/+$/, "")}/${path.slice(2)}`;
	return path;
}
