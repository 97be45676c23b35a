/**
 * A real OpenSSH server for tests: on a loopback port, as the current user, with a generated host key and user
 * key in a temporary directory, in the foreground (`sshd -D -e -f config`), stopped by the test. Without sshd
 * the SSH tests are skipped with a printed reason, except in CI (env CI set), where they must run.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitUntil } from "./wait.ts";

const SSHD_PATHS = ["/usr/sbin/sshd", "/usr/local/sbin/sshd", "/sbin/sshd"];

/** The sshd binary, or null; in CI a missing one fails the tests instead of skipping them. */
export function findSshd(): string | null {
	const found = SSHD_PATHS.find((p) => existsSync(p)) ?? null;
	if (found) return found;
	if (process.env.CI) throw new Error("sshd is missing in CI: .ci/run installs openssh-server");
	console.log("SSH tests skipped: no sshd (install openssh-server to run them)");
	return null;
}

/** A loopback port nothing listens on (one just let go). */
export function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const server = createServer();
		server.once("error", reject);
		server.listen(0, "127.0.0.1", () => {
			const address = server.address();
			const port = typeof address === "object" && address ? address.port : 0;
			server.close(() => resolve(port));
		});
	});
}

function keygen(path: string, comment: string): void {
	const done = spawnSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", path]);
	if (done.status !== 0) throw new Error(`ssh-keygen failed: ${done.stderr.toString()}`);
}

export class TestSshd {
	readonly dir: string;
	readonly port: number;
	/** `id -un`: Bun's userInfo() may answer "unknown". */
	readonly user = spawnSync("id", ["-un"]).stdout.toString().trim();
	readonly host = "127.0.0.1";
	readonly identityFile: string;
	/** The home directory sessions over this server get (HOME). */
	readonly home: string;
	readonly #sshd: string;
	#child: ChildProcess | null = null;
	#log = "";

	private constructor(sshd: string, dir: string, port: number) {
		this.#sshd = sshd;
		this.dir = dir;
		this.port = port;
		this.identityFile = join(dir, "user_ed25519");
		this.home = join(dir, "home");
	}

	static async start(sshd: string): Promise<TestSshd> {
		const dir = mkdtempSync(join(tmpdir(), "p2-sshd-"));
		const server = new TestSshd(sshd, dir, await freePort());
		mkdirSync(server.home);
		keygen(join(dir, "host_ed25519"), "p2-test-host");
		keygen(server.identityFile, "p2-test-user");
		writeFileSync(join(dir, "authorized_keys"), readFileSync(`${server.identityFile}.pub`));
		writeFileSync(
			join(dir, "sshd_config"),
			[
				`Port ${server.port}`,
				"ListenAddress 127.0.0.1",
				`HostKey ${join(dir, "host_ed25519")}`,
				`AuthorizedKeysFile ${join(dir, "authorized_keys")}`,
				"PidFile none",
				"UsePAM no",
				"StrictModes no",
				"PasswordAuthentication no",
				"KbdInteractiveAuthentication no",
				"PubkeyAuthentication yes",
				"PermitRootLogin prohibit-password",
				"MaxStartups 64",
				"LogLevel INFO",
				// The account's own home (and its shell start-up files) stay out of the tests.
				`SetEnv HOME=${server.home}`,
				"",
			].join("\n"),
		);
		// Run as root, sshd wants its privilege separation directory.
		if (process.getuid?.() === 0) mkdirSync("/run/sshd", { recursive: true, mode: 0o755 });
		await server.resume();
		return server;
	}

	/** The sshd's host key's public line (`ssh-ed25519 AAAA… comment`). */
	hostPublicKey(): string {
		return readFileSync(join(this.dir, "host_ed25519.pub"), "utf8").trim();
	}

	/** envs.json's entry for this server. */
	entry(name: string): Record<string, unknown> {
		return { name, host: this.host, port: this.port, user: this.user, identityFile: this.identityFile };
	}

	/** Starts sshd (again) on the same port, ready once it listens. */
	async resume(): Promise<void> {
		this.#log = "";
		const child = spawn(this.#sshd, ["-D", "-e", "-f", join(this.dir, "sshd_config")], {
			detached: true,
			stdio: ["ignore", "ignore", "pipe"],
		});
		child.stderr?.on("data", (chunk: Buffer) => {
			this.#log += chunk.toString("utf8");
		});
		let exited = false;
		child.on("exit", () => {
			exited = true;
		});
		this.#child = child;
		await waitUntil(() => {
			if (exited) throw new Error(`sshd exited: ${this.#log}`);
			return this.#log.includes("Server listening on");
		}, "sshd listening");
	}

	/**
	 * Ends sshd and every connection it serves at once (a dropped network, as far as the client sees). Each
	 * connection's sshd is a session of its own, so they are found among the listener's descendants; the
	 * commands they run are left running, as on a machine whose network went away.
	 */
	async drop(): Promise<void> {
		const child = this.#child;
		this.#child = null;
		if (!child?.pid) return;
		const table = spawnSync("ps", ["-eo", "pid=,ppid=,comm="])
			.stdout.toString()
			.split("\n")
			.map((line) => line.trim().split(/\s+/))
			.filter((f) => f.length >= 3)
			.map(([pid, ppid, comm]) => ({ pid: Number(pid), ppid: Number(ppid), comm: comm ?? "" }));
		const servers: number[] = [];
		const walk = (parent: number) => {
			for (const p of table) {
				if (p.ppid !== parent || p.comm !== "sshd") continue;
				servers.push(p.pid);
				walk(p.pid);
			}
		};
		walk(child.pid);
		const gone = new Promise((resolve) => child.once("exit", resolve));
		for (const pid of [child.pid, ...servers]) {
			try {
				process.kill(pid, "SIGKILL");
			} catch {
				// Already gone.
			}
		}
		await gone;
	}

	/** A new host key, as when a machine is reinstalled (or someone is in between). */
	async changeHostKey(): Promise<void> {
		await this.drop();
		rmSync(join(this.dir, "host_ed25519"));
		rmSync(join(this.dir, "host_ed25519.pub"));
		keygen(join(this.dir, "host_ed25519"), "p2-test-host-2");
		await this.resume();
	}

	async stop(): Promise<void> {
		await this.drop();
		rmSync(this.dir, { recursive: true, force: true });
	}
}
