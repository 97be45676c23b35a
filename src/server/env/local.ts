import { type Dirent, statSync } from "node:fs";
import { mkdir, readdir, readFile, realpath, stat, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, isAbsolute, resolve } from "node:path";
import {
	type DirEntry,
	EnvFileError,
	type Environment,
	type ExecEnd,
	type ExecRequest,
	expandHome,
	fileErrorText,
	type PathInfo,
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

	async listDirectory(path: string): Promise<DirEntry[]> {
		const entries: Dirent[] = await readdir(path, { withFileTypes: true });
		return entries.map((e) => ({ name: e.name, dir: e.isDirectory() }));
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

	/** The account's shell ($SHELL, else bash), interactive, as a new terminal window starts it; in the home directory when `cwd` is gone. */
	openTerminal(request: TerminalRequest): TerminalProcess {
		const shell = process.env.SHELL?.startsWith("/") ? process.env.SHELL : "/bin/bash";
		const cwd = isDirectory(request.cwd) ? request.cwd : this.#home;
		const env = { ...process.env, TERM: "xterm-256color", COLORTERM: "truecolor" };
		return spawnInTerminal([shell], { cwd, env }, request);
	}
}
