/**
 * A machine reached with OpenSSH. Each operation is one `ssh` command over a shared master connection
 * (ControlMaster/ControlPersist), so only the first pays for the handshake. Host keys are checked strictly
 * against the server's own known-hosts file; the target needs a POSIX shell, and bash for `bash` and `!`.
 */

import { posix } from "node:path";
import type { SshEnvConfig } from "./config.ts";
import {
	BoundedOutput,
	type DirEntry,
	EnvConnectionError,
	EnvFileError,
	type Environment,
	type ExecEnd,
	type ExecRequest,
	expandHome,
	fileErrorText,
	MAX_TCP_PENDING,
	type PathInfo,
	type Ran,
	type RunOptions,
	type TcpConnection,
	type TcpHandlers,
	type TerminalProcess,
	type TerminalRequest,
} from "./environment.ts";
import { spawnInTerminal } from "./pty.ts";
import { spawn } from "./spawn.ts";

export interface SshPlaces {
	/** The known-hosts file ssh trusts, and nothing else (`<data>/known_hosts`). */
	readonly knownHosts: string;
	/** A short private directory for the master connections' sockets (a socket path has ~100 bytes). */
	readonly controlDir: string;
	/** The server's home directory, for `~` in identityFile. */
	readonly localHome: string;
	/** How long an idle master connection stays open, in seconds. */
	readonly persistSeconds?: number;
	/** Told when ssh could not connect (why), and when a connection test worked again (null). */
	readonly onConnection?: (trouble: EnvConnectionError | null) => void;
}

/** A word for the remote shell: single-quoted. */
export function shellQuote(word: string): string {
	return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Operations at once over one connection (sshd's MaxSessions is 10 by default; two stay free for kills). */
const SESSIONS = 8;

/** An operation given up while it waited for one of the connection's sessions: it never ran. */
class QueuedCancelled extends Error {
	constructor() {
		super("cancelled before it started");
	}
}

/** Where a file operation's own output starts (a login shell may print before it). */
const OUTPUT_MARK = "\u0001P2\u0002";
/** How much a login shell may print before a command's first line (kept only as far as needed). */
const MAX_NOISE = 64 * 1024;

/** A file operation's script exits with FILE_ERROR and names the error code on stderr. */
const FILE_ERROR = 3;

const SCRIPTS = {
	stat: `p=$1
if [ -d "$p" ]; then echo d 0; elif [ -f "$p" ]; then echo f $(wc -c < "$p" 2>/dev/null); elif [ -e "$p" ]; then echo o 0; else echo n 0; fi`,
	read: `p=$1
[ -e "$p" ] || { echo ENOENT >&2; exit 3; }
[ -d "$p" ] && { echo EISDIR >&2; exit 3; }
[ -r "$p" ] || { echo EACCES >&2; exit 3; }
exec cat -- "$p"`,
	write: `p=$1
[ -d "$p" ] && { echo EISDIR >&2; exit 3; }
mkdir -p -- "$(dirname -- "$p")" 2>/dev/null || { echo ENOTDIR >&2; exit 3; }
cat > "$p" 2>/dev/null || { echo EACCES >&2; exit 3; }`,
	// GNU find names each entry's kind and size in one pass; elsewhere the shell names kinds, sizes unknown (0).
	list: `p=$1
[ -e "$p" ] || { echo ENOENT >&2; exit 3; }
[ -d "$p" ] || { echo ENOTDIR >&2; exit 3; }
cd -- "$p" 2>/dev/null || { echo EACCES >&2; exit 3; }
find . -mindepth 1 -maxdepth 1 -printf '%y\\t%s\\t%f\\0' 2>/dev/null && exit 0
for f in * .[!.]* ..?*; do
if [ -L "$f" ]; then t=l; elif [ -d "$f" ]; then t=d; elif [ -e "$f" ]; then t=f; else continue; fi
printf '%s\\t0\\t%s\\0' "$t" "$f"
done`,
	real: `p=$1
[ -e "$p" ] || exit 0
readlink -f -- "$p"`,
	directory: `p=$1
case $p in "~") p=$HOME;; "~/"*) p=$HOME/\${p#"~/"};; esac
[ -e "$p" ] || { echo ENOENT >&2; exit 3; }
[ -d "$p" ] || { echo ENOTDIR >&2; exit 3; }
cd -- "$p" 2>/dev/null || { echo EACCES >&2; exit 3; }
pwd -P`,
	// The login shell execs this script, and sshd made that process a session leader: its pid is the group
	// every process of the command belongs to, which abort kills. The first line says which, or that the
	// directory is missing; what the command leaves behind is ended with it. The login shell has read the
	// account's start-up files (PATH and the like are inherited); --norc keeps bash from reading .bashrc again
	// (Debian's bash does when it thinks sshd started it). The command's stderr joins its stdout there, in
	// order; ssh's own stderr is then only the login shell's and ssh's words, never the command's output.
	exec: `if cd -- "$1" 2>/dev/null; then printf 'P2PID %s\\n' "$$"; else printf 'P2NOCWD\\n'; exit 97; fi
export PAGER=cat GIT_PAGER=cat
bash --norc -c "$2" 2>&1
s=$?
trap '' TERM
kill -s TERM -- -$$ 2>/dev/null
exit $s`,
	home: `printf '%s' "$HOME"`,
} as const;

interface Finished {
	readonly code: number | null;
	readonly stdout: Buffer;
	readonly stderr: string;
}

/** What ssh printed last: the line that says why it failed. */
function lastLine(text: string): string {
	const lines = text
		.split(/\r?\n/)
		.map((l) => l.trim())
		.filter(Boolean);
	return lines.at(-1) ?? "no reason given";
}

export class SshEnvironment implements Environment {
	readonly remote = true;
	readonly config: SshEnvConfig;
	readonly #places: SshPlaces;
	#home: string | null = null;
	#running = 0;
	readonly #waiting: (() => void)[] = [];
	/** Process groups of commands whose connection broke: ended once the machine is reached again. */
	readonly #orphans = new Set<number>();

	constructor(config: SshEnvConfig, places: SshPlaces) {
		this.config = config;
		this.#places = places;
	}

	get name(): string {
		return this.config.name;
	}

	/** `user@host:port`, as the owner reads it. */
	get address(): string {
		const c = this.config;
		return `${c.user ? `${c.user}@` : ""}${c.host}${c.port === 22 ? "" : `:${c.port}`}`;
	}

	/** ssh's options, the same for every operation. */
	args(): string[] {
		const c = this.config;
		const options = [
			"BatchMode=yes",
			"StrictHostKeyChecking=yes",
			`UserKnownHostsFile=${this.#places.knownHosts}`,
			"GlobalKnownHostsFile=/dev/null",
			"UpdateHostKeys=no",
			"CheckHostIP=no",
			"ControlMaster=auto",
			`ControlPath=${this.#places.controlDir}/%C`,
			`ControlPersist=${this.#places.persistSeconds ?? 300}`,
			"ConnectTimeout=10",
			"ServerAliveInterval=15",
			"ServerAliveCountMax=3",
			"LogLevel=ERROR",
			"ForwardAgent=no",
			"ForwardX11=no",
			"ClearAllForwardings=yes",
		];
		if (c.identityFile)
			options.push(`IdentityFile=${expandHome(c.identityFile, this.#places.localHome)}`, "IdentitiesOnly=yes");
		// The server's own ssh configuration is not read: envs.json says all there is about a machine.
		const args = ["-F", "none", "-T", "-e", "none", "-p", String(c.port)];
		for (const o of options) args.push("-o", o);
		if (c.user) args.push("-l", c.user);
		args.push("--", c.host);
		return args;
	}

	/**
	 * A TCP connection to `port` on the machine's loopback, carried by the shared connection (ssh's stdio
	 * forwarding, `-W`): ssh's stdin and stdout are the connection's bytes. A port nothing listens on there ends
	 * it at once.
	 */
	connectTcp(host: string, port: number, handlers: TcpHandlers): TcpConnection {
		const args = this.args();
		const destination = args.splice(-2);
		const target = host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
		const child = spawn("ssh", [...args, "-W", target, ...destination], { stdio: ["pipe", "pipe", "ignore"] });
		let closed = false;
		const close = () => {
			if (closed) return;
			closed = true;
			child.kill();
			handlers.closed();
		};
		child.on("close", close);
		child.on("error", close);
		child.stdin?.on("error", close);
		child.stdout?.on("data", (bytes: Buffer) => handlers.data(new Uint8Array(bytes)));
		return {
			write(bytes) {
				if (closed || !child.stdin) return;
				if (child.stdin.writableLength > MAX_TCP_PENDING) return close();
				child.stdin.write(bytes);
			},
			close,
		};
	}

	/** Programs run by argv through `exec` (stdout only), bounded in output and time as on this device. */
	async run(argv: readonly string[], options: RunOptions): Promise<Ran> {
		const words = argv.map(shellQuote).join(" ");
		// A shell word cannot hold a NUL: stdin is printed piece by piece, a NUL before each but the first.
		const [first = "", ...rest] = options.input?.split("\0") ?? [];
		const more = rest.length ? `; printf '\\0%s' ${rest.map(shellQuote).join(" ")}` : "";
		const input = options.input === undefined ? "" : `{ printf '%s' ${shellQuote(first)}${more}; } | `;
		const command = `export GIT_OPTIONAL_LOCKS=0 GIT_TERMINAL_PROMPT=0 LC_ALL=C; ${input}${words} 2>/dev/null`;
		const output = new BoundedOutput(options.maxBytes);
		const stop = new AbortController();
		const end = await this.exec({
			command,
			cwd: options.cwd,
			signal: stop.signal,
			timeoutSeconds: Math.max(1, Math.ceil(options.timeoutMs / 1000)),
			onData: (chunk) => {
				if (!output.full && output.add(chunk)) stop.abort();
			},
		});
		const full = output.full;
		const out = output.text();
		const timedOut = end.ended === "timeout";
		return { code: full || end.ended !== "exit" ? null : end.exitCode, out, full, timedOut };
	}

	/** Nothing runs on the machine to tell what changed there. */
	watch(): null {
		return null;
	}

	/** One ssh command; `script` runs in `sh` with `words` as its arguments. */
	#ssh(
		script: string,
		words: readonly string[],
		options: {
			stdin?: string | Uint8Array;
			onStdout?: (chunk: Buffer) => void;
			/** Given stderr's chunks; those it returns false for are kept for the error (ssh's own words). */
			onStderr?: (chunk: Buffer) => boolean;
			/** Skips the queue (ending a command must not wait behind the commands it ends). */
			urgent?: boolean;
			/** Given up while still waiting its turn: it never starts, and the call rejects with QueuedCancelled. */
			cancel?: AbortSignal;
		} = {},
	): Promise<Finished> {
		const remote = `exec sh -c ${shellQuote(script)} p2 ${words.map(shellQuote).join(" ")}`;
		if (options.urgent) return this.#spawn(remote, options);
		return this.#slot(() => this.#spawn(remote, options), options.cancel);
	}

	/**
	 * sshd allows 10 sessions per connection (MaxSessions): at most SESSIONS operations run at once, the rest
	 * wait their turn; the two left over are for ending commands.
	 */
	async #slot<T>(work: () => Promise<T>, cancel?: AbortSignal): Promise<T> {
		if (cancel?.aborted) throw new QueuedCancelled();
		if (this.#running >= SESSIONS) {
			await new Promise<void>((resolve, reject) => {
				const turn = () => {
					cancel?.removeEventListener("abort", giveUp);
					resolve();
				};
				const giveUp = () => {
					const at = this.#waiting.indexOf(turn);
					if (at >= 0) this.#waiting.splice(at, 1);
					reject(new QueuedCancelled());
				};
				cancel?.addEventListener("abort", giveUp, { once: true });
				this.#waiting.push(turn);
			});
		}
		this.#running++;
		try {
			return await work();
		} finally {
			this.#running--;
			this.#waiting.shift()?.();
		}
	}

	#spawn(
		remote: string,
		options: { stdin?: string | Uint8Array; onStdout?: (chunk: Buffer) => void; onStderr?: (chunk: Buffer) => boolean },
	): Promise<Finished> {
		return new Promise((resolve, reject) => {
			const child = spawn("ssh", [...this.args(), remote], {
				stdio: [options.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"],
			});
			const out: Buffer[] = [];
			const err: Buffer[] = [];
			child.stdout?.on("data", (chunk: Buffer) => (options.onStdout ? options.onStdout(chunk) : out.push(chunk)));
			child.stderr?.on("data", (chunk: Buffer) => {
				if (!options.onStderr?.(chunk)) err.push(chunk);
			});
			child.on("error", (error) => reject(new EnvConnectionError(`Could not run ssh: ${error.message}`)));
			child.on("close", (code) =>
				resolve({ code, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString("utf8") }),
			);
			if (options.stdin !== undefined && child.stdin) {
				child.stdin.on("error", () => {});
				child.stdin.end(options.stdin);
			}
		});
	}

	/** The error for ssh's own failure (exit 255): unreachable, refused, or a host key to accept first. */
	connectionError(stderr: string): EnvConnectionError {
		const trouble = this.#trouble(stderr);
		this.#places.onConnection?.(trouble);
		return trouble;
	}

	#trouble(stderr: string): EnvConnectionError {
		const where = `${this.name} (${this.address})`;
		if (/REMOTE HOST IDENTIFICATION HAS CHANGED/.test(stderr)) {
			return new EnvConnectionError(
				`The host key of ${where} has changed. Review it in /envs (Ctrl+K) before connecting.`,
				"changed",
			);
		}
		if (/Host key verification failed|No \S+ host key is known/.test(stderr)) {
			return new EnvConnectionError(
				`The host key of ${where} is not verified yet. Review it in /envs (Ctrl+K) before connecting.`,
				"unknown",
			);
		}
		return new EnvConnectionError(`Could not reach ${where}: ${lastLine(stderr)}`);
	}

	/** Runs a file operation's script; its own failures become EnvFileError, ssh's EnvConnectionError. */
	async #file(
		script: string,
		path: string,
		options: { stdin?: string | Uint8Array; onStdout?: (chunk: Buffer) => void } = {},
	): Promise<Buffer> {
		// The marker ends what a login shell's start-up files may have printed; the script's output follows it.
		const done = await this.#ssh(`printf '${OUTPUT_MARK}'\n${script}`, [path], options);
		if (done.code === 0) {
			this.#reachedAgain();
			const at = done.stdout.indexOf(OUTPUT_MARK);
			return at < 0 ? Buffer.alloc(0) : done.stdout.subarray(at + OUTPUT_MARK.length);
		}
		if (done.code === FILE_ERROR) {
			const code = lastLine(done.stderr);
			throw new EnvFileError(code, fileErrorText(code, path));
		}
		if (done.code === 255) throw this.connectionError(done.stderr);
		throw new Error(`${this.name}: ${lastLine(done.stderr)}`);
	}

	async home(): Promise<string> {
		return this.#home ?? this.probe();
	}

	/** Connects (or reuses the connection) and asks for the home directory: a test of the connection. */
	async probe(): Promise<string> {
		const home = (await this.#file(SCRIPTS.home, "")).toString("utf8");
		if (!home.startsWith("/"))
			throw new Error(`${this.name}: the home directory is unknown (HOME is ${JSON.stringify(home)})`);
		this.#home = home;
		this.#places.onConnection?.(null);
		return home;
	}

	async stat(path: string): Promise<PathInfo | null> {
		const [kind, size] = (await this.#file(SCRIPTS.stat, path)).toString("utf8").trim().split(" ");
		if (kind === "n") return null;
		return { kind: kind === "d" ? "directory" : kind === "f" ? "file" : "other", size: Number(size) || 0 };
	}

	readFile(path: string): Promise<Buffer> {
		return this.#file(SCRIPTS.read, path);
	}

	async writeFile(path: string, data: string | Uint8Array): Promise<void> {
		await this.#file(SCRIPTS.write, path, { stdin: data });
	}

	/** Sizes come with the listing here, asked for or not. */
	async listDirectory(path: string): Promise<DirEntry[]> {
		const text = (await this.#file(SCRIPTS.list, path)).toString("utf8");
		const entries: DirEntry[] = [];
		for (const item of text.split("\0")) {
			const [kind = "", size = "0", ...rest] = item.split("\t");
			const name = rest.join("\t");
			if (!name) continue;
			entries.push({ name, dir: kind === "d", link: kind === "l", size: kind === "f" ? Number(size) || 0 : 0 });
		}
		return entries;
	}

	async realPath(path: string): Promise<string | null> {
		const real = (await this.#file(SCRIPTS.real, path)).toString("utf8").replace(/\n$/, "");
		return real.startsWith("/") ? real : null;
	}

	async directory(path: string): Promise<string> {
		if (!path.startsWith("/") && path !== "~" && !path.startsWith("~/")) {
			throw new EnvFileError("EINVAL", `Not an absolute path: ${path}`);
		}
		return (await this.#file(SCRIPTS.directory, posix.normalize(path))).toString("utf8").trim();
	}

	/** Ends a command's process group on the machine (abort, timeout, or left over from a broken connection). */
	async #kill(pgid: number): Promise<boolean> {
		const done = await this.#ssh("kill -s KILL -- -$1 2>/dev/null; exit 0", [String(pgid)], { urgent: true }).catch(
			() => null,
		);
		return done?.code === 0;
	}

	/** The machine answered: a notice that it could not be reached ends, and commands a broken connection left end. */
	#reachedAgain(): void {
		this.#places.onConnection?.(null);
		for (const pgid of this.#orphans) {
			this.#orphans.delete(pgid);
			void this.#kill(pgid);
		}
	}

	/** Whether the master connection is up (it is gone once the connection broke). */
	async #masterAlive(): Promise<boolean> {
		return new Promise((resolve) => {
			const child = spawn("ssh", ["-O", "check", ...this.args()], { stdio: "ignore" });
			child.on("error", () => resolve(false));
			child.on("close", (code) => resolve(code === 0));
		});
	}

	async exec(request: ExecRequest): Promise<ExecEnd> {
		const { signal } = request;
		if (signal?.aborted) return { exitCode: null, ended: "aborted" };
		let header = "";
		const early: Buffer[] = [];
		let pgid: number | null = null;
		let missingCwd = false;
		let ended: ExecEnd["ended"] = "exit";
		let kill: Promise<boolean> | null = null;
		const cancel = new AbortController();
		const stop = (why: "aborted" | "timeout") => {
			if (ended !== "exit") return;
			ended = why;
			// Still waiting its turn: it never starts.
			cancel.abort();
			if (pgid !== null) kill = this.#kill(pgid);
		};
		const onAbort = () => stop("aborted");
		signal?.addEventListener("abort", onAbort, { once: true });
		const timer =
			request.timeoutSeconds && request.timeoutSeconds > 0
				? setTimeout(() => stop("timeout"), request.timeoutSeconds * 1000)
				: undefined;
		let done: Finished;
		try {
			done = await this.#ssh(SCRIPTS.exec, [request.cwd, request.command], {
				onStdout: (chunk) => {
					if (pgid !== null) return request.onData(chunk);
					if (missingCwd) return;
					header += chunk.toString("latin1");
					// A login shell's start-up files may print before the script does: those lines are dropped.
					let line = "";
					let newline = -1;
					for (;;) {
						newline = header.indexOf("\n");
						if (newline < 0) {
							if (header.length > MAX_NOISE) header = header.slice(-64);
							return;
						}
						line = header.slice(0, newline);
						if (line === "P2NOCWD" || /^P2PID \d+$/.test(line)) break;
						header = header.slice(newline + 1);
					}
					if (line === "P2NOCWD") {
						missingCwd = true;
						return;
					}
					pgid = Number(line.slice("P2PID ".length));
					this.#reachedAgain();
					// Stopped before the group was known: end it now.
					if (ended !== "exit") kill = this.#kill(pgid);
					// What came on stderr before the first line is the login shell's (its start-up files), not the command's.
					early.splice(0);
					const rest = Buffer.from(header.slice(newline + 1), "latin1");
					if (rest.length > 0) request.onData(rest);
				},
				onStderr: (chunk) => {
					if (pgid === null) early.push(chunk);
					return true;
				},
				cancel: cancel.signal,
			});
		} catch (error) {
			if (error instanceof QueuedCancelled) return { exitCode: null, ended };
			throw error;
		} finally {
			clearTimeout(timer);
			signal?.removeEventListener("abort", onAbort);
		}
		if (kill) await kill;
		if (missingCwd) {
			throw new Error(`Working directory does not exist: ${this.name}:${request.cwd}\nCannot execute bash commands.`);
		}
		if (pgid === null) throw this.connectionError(Buffer.concat(early).toString("utf8"));
		if (ended !== "exit") return { exitCode: null, ended };
		if (done.code === 255 && !(await this.#masterAlive())) {
			this.#orphans.add(pgid);
			throw new EnvConnectionError(
				`The connection to ${this.name} (${this.address}) broke while the command ran; it reconnects for the next one.`,
			);
		}
		return { exitCode: done.code, ended };
	}

	/**
	 * The account's login shell on the machine, in a terminal there (`ssh -tt`, in a pseudo-terminal here so a
	 * resize travels as ssh's window change). It holds one of the connection's sessions while it runs.
	 */
	openTerminal(request: TerminalRequest): TerminalProcess {
		// ssh's own words would go to the terminal, where a guest would read the machine's address: it stays quiet.
		const args = this.args().map((a) => (a === "-T" ? "-tt" : a === "LogLevel=ERROR" ? "LogLevel=QUIET" : a));
		const remote = `cd -- ${shellQuote(request.cwd)} 2>/dev/null || cd; exec "\${SHELL:-/bin/sh}" -l`;
		this.#running++;
		let released = false;
		const release = () => {
			if (released) return;
			released = true;
			this.#running--;
			this.#waiting.shift()?.();
		};
		const env = { ...process.env, TERM: "xterm-256color" };
		try {
			return spawnInTerminal(
				["ssh", ...args, remote],
				{ cwd: this.#places.localHome, env },
				{
					...request,
					onExit: (code) => {
						release();
						// ssh's 255 is its own failure (the machine could not be reached, or the connection broke).
						request.onExit(code === 255 ? null : code);
					},
				},
			);
		} catch (error) {
			release();
			throw error;
		}
	}

	/** Closes the master connection (the server stops, or the configuration changed). */
	close(): Promise<void> {
		return new Promise((resolve) => {
			const child = spawn("ssh", ["-O", "exit", ...this.args()], { stdio: "ignore" });
			child.on("error", () => resolve());
			child.on("close", () => resolve());
		});
	}
}
