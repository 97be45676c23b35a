import { type Dirent, type FSWatcher, lstatSync, statSync, watch } from "node:fs";
import { mkdir, readdir, readFile, realpath, stat, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import type { Socket } from "bun";
import {
	BoundedOutput,
	type DirEntry,
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

function killGroup(pid: number | undefined): void {
	if (!pid) return;
	try {
		process.kill(-pid, "SIGKILL");
	} catch {
		// Already gone.
	}
}

/** A burst of writes (a save, a checkout) is one change once this long passed without another. */
const SETTLE_MS = 150;

/** Programs run by `run` need no terminal or locale, and git takes no optional locks (the agent may be committing). */
const RUN_ENV = { GIT_OPTIONAL_LOCKS: "0", GIT_TERMINAL_PROMPT: "0", LC_ALL: "C" };

/** A file's size; 0 when it is gone since it was listed. */
function sizeOf(path: string): number {
	try {
		return lstatSync(path).size;
	} catch {
		return 0;
	}
}

function isDirectory(path: string): boolean {
	try {
		return statSync(path).isDirectory();
	} catch {
		return false;
	}
}

/** The server's own machine. */
export class LocalEnvironment implements Environment {
	readonly name = "local";
	readonly remote = false;
	readonly #home: string;

	constructor(home: string = homedir()) {
		this.#home = home;
	}

	async home(): Promise<string> {
		return this.#home;
	}

	async stat(path: string): Promise<PathInfo | null> {
		try {
			const info = await stat(path);
			return { kind: info.isDirectory() ? "directory" : info.isFile() ? "file" : "other", size: info.size };
		} catch {
			return null;
		}
	}

	readFile(path: string): Promise<Buffer> {
		return readFile(path);
	}

	async writeFile(path: string, data: string | Uint8Array): Promise<void> {
		await mkdir(dirname(path), { recursive: true });
		await writeFile(path, data);
	}

	async listDirectory(path: string, options: { readonly sizes?: boolean } = {}): Promise<DirEntry[]> {
		const entries: Dirent[] = await readdir(path, { withFileTypes: true });
		return entries.map((e) => {
			const dir = e.isDirectory();
			const link = e.isSymbolicLink();
			// One lstat each, in turn: 20,000 at once as promises cost five times as long.
			return { name: e.name, dir, link, size: options.sizes && !dir && !link ? sizeOf(join(path, e.name)) : 0 };
		});
	}

	realPath(path: string): Promise<string | null> {
		return realpath(path).catch(() => null);
	}

	async directory(path: string): Promise<string> {
		const expanded = expandHome(path, this.#home);
		if (!isAbsolute(expanded)) throw new EnvFileError("EINVAL", `Not an absolute path: ${path}`);
		let real: string;
		try {
			real = await realpath(resolve(expanded));
		} catch (error) {
			const code = (error as NodeJS.ErrnoException).code ?? "ENOENT";
			throw new EnvFileError(code, fileErrorText(code, expanded));
		}
		if (!isDirectory(real)) throw new EnvFileError("ENOTDIR", fileErrorText("ENOTDIR", expanded));
		return real;
	}

	exec(request: ExecRequest): Promise<ExecEnd> {
		const { command, cwd, signal, onData } = request;
		return new Promise((done, fail) => {
			if (signal?.aborted) return done({ exitCode: null, ended: "aborted" });
			// Spawning in a deleted directory fails as "ENOENT … posix_spawn 'bash'", which names neither.
			if (!isDirectory(cwd)) {
				return fail(new Error(`Working directory does not exist: ${cwd}\nCannot execute bash commands.`));
			}
			const child = spawn("bash", ["-c", command], {
				cwd,
				detached: true,
				stdio: ["ignore", "pipe", "pipe"],
				env: { ...process.env, PAGER: "cat", GIT_PAGER: "cat" },
			});
			let ended: ExecEnd["ended"] = "exit";
			let timer: ReturnType<typeof setTimeout> | undefined;
			child.stdout?.on("data", onData);
			child.stderr?.on("data", onData);
			const onAbort = () => {
				ended = "aborted";
				killGroup(child.pid);
			};
			signal?.addEventListener("abort", onAbort, { once: true });
			if (request.timeoutSeconds && request.timeoutSeconds > 0) {
				timer = setTimeout(() => {
					ended = "timeout";
					killGroup(child.pid);
				}, request.timeoutSeconds * 1000);
			}
			const cleanup = () => {
				if (timer) clearTimeout(timer);
				signal?.removeEventListener("abort", onAbort);
			};
			child.on("error", (error) => {
				cleanup();
				fail(new Error(`Could not run bash: ${error.message}`));
			});
			child.on("close", (code) => {
				cleanup();
				// Children that outlived the shell still hold the group; end them with it.
				killGroup(child.pid);
				done({ exitCode: code ?? null, ended });
			});
		});
	}

	async run(argv: readonly string[], options: RunOptions): Promise<Ran> {
		let proc: ReturnType<typeof Bun.spawn>;
		try {
			proc = Bun.spawn([...argv], {
				cwd: options.cwd,
				stdin: options.input === undefined ? "ignore" : new TextEncoder().encode(options.input),
				stdout: "pipe",
				stderr: "ignore",
				env: { ...process.env, ...RUN_ENV },
			});
		} catch {
			// No such program (or no such directory): as a shell would say.
			return { code: 127, out: "", full: false, timedOut: false };
		}
		let timedOut = false;
		const timer = setTimeout(() => {
			timedOut = true;
			proc.kill();
		}, options.timeoutMs);
		const output = new BoundedOutput(options.maxBytes);
		const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
		try {
			for (;;) {
				const { done, value } = await reader.read();
				if (done) break;
				if (output.add(value)) {
					proc.kill();
					break;
				}
			}
		} finally {
			reader.releaseLock();
		}
		const code = await proc.exited;
		clearTimeout(timer);
		const full = output.full;
		const out = output.text();
		return { code: full || timedOut ? null : code, out, full, timedOut };
	}

	watch(dir: string, onChange: () => void): () => void {
		let timer: ReturnType<typeof setTimeout> | undefined;
		let watcher: FSWatcher | undefined;
		try {
			watcher = watch(dir, { recursive: true }, () => {
				clearTimeout(timer);
				timer = setTimeout(onChange, SETTLE_MS);
			});
			watcher.on("error", () => watcher?.close());
		} catch {
			watcher = undefined;
		}
		return () => {
			clearTimeout(timer);
			watcher?.close();
		};
	}

	connectTcp(host: string, port: number, handlers: TcpHandlers): TcpConnection {
		let socket: Socket | undefined;
		let closed = false;
		/** Written before the socket opened, or what it did not take yet (it takes what it can; the rest on drain). */
		const unwritten: Uint8Array[] = [];
		let unwrittenBytes = 0;
		const flush = (s: Socket) => {
			while (unwritten.length) {
				const bytes = unwritten[0] as Uint8Array;
				const n = Math.max(0, s.write(bytes));
				unwrittenBytes -= n;
				if (n < bytes.length) {
					unwritten[0] = bytes.subarray(n);
					return;
				}
				unwritten.shift();
			}
		};
		const close = () => {
			if (closed) return;
			closed = true;
			socket?.end();
			handlers.closed();
		};
		Bun.connect({
			hostname: host,
			port,
			socket: {
				open(s) {
					if (closed) return void s.end();
					socket = s;
					flush(s);
				},
				drain: flush,
				data(_s, bytes) {
					handlers.data(new Uint8Array(bytes));
				},
				close,
				error: close,
				connectError: close,
			},
		}).catch(close);
		return {
			write(bytes) {
				if (closed) return;
				unwritten.push(bytes);
				unwrittenBytes += bytes.length;
				if (unwrittenBytes > MAX_TCP_PENDING) return close();
				if (socket) flush(socket);
			},
			close,
		};
	}

	/** The account's shell ($SHELL, else bash), interactive, as a new terminal window starts it; in the home directory when `cwd` is gone. */
	openTerminal(request: TerminalRequest): TerminalProcess {
		const shell = process.env.SHELL?.startsWith("/") ? process.env.SHELL : "/bin/bash";
		const cwd = isDirectory(request.cwd) ? request.cwd : this.#home;
		const env = { ...process.env, TERM: "xterm-256color", COLORTERM: "truecolor" };
		return spawnInTerminal([shell], { cwd, env }, request);
	}
}
