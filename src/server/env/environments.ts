/**
 * The environments a session may run in: this device, and the SSH machines of `<data>/envs.json`. One SSH
 * environment (with its master connection) per configured machine, kept while its configuration is unchanged.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { ProtocolError } from "../../protocol/codes.ts";
import { errorText } from "../../protocol/errors.ts";
import { type EnvsConfig, readEnvsConfig, type SshEnvConfig } from "./config.ts";
import { EnvConnectionError, type Environment } from "./environment.ts";
import { type HostKey, hostToken, KNOWN_HOSTS_FILE, knownKeys, scanHostKeys, setKnownKeys } from "./known-hosts.ts";
import { LocalEnvironment } from "./local.ts";
import { SshEnvironment } from "./ssh.ts";

export const LOCAL_ENV = "local";

export type TestResult =
	| { readonly ok: true; readonly home: string; readonly ms: number }
	| {
			readonly ok: false;
			readonly error: string;
			/** When the host key stopped the connection: what the machine presents, and what is trusted now. */
			readonly hostKey?: {
				readonly status: "unknown" | "changed";
				readonly offered: readonly HostKey[];
				readonly known: readonly HostKey[];
			};
	  };

export interface EnvironmentsOptions {
	readonly dataDir: string;
	/** The server's home directory (this device's `~`). */
	readonly home?: string | undefined;
	/** How long an idle SSH connection stays open, in seconds. */
	readonly persistSeconds?: number;
	/** A machine could not be reached (why), or was reached again by a test (null). */
	readonly onConnection?: (name: string, trouble: EnvConnectionError | null) => void;
}

function sameConfig(a: SshEnvConfig, b: SshEnvConfig): boolean {
	return JSON.stringify(a) === JSON.stringify(b);
}

export class Environments {
	readonly local: LocalEnvironment;
	readonly knownHostsFile: string;
	readonly #dataDir: string;
	readonly #home: string;
	readonly #persistSeconds: number | undefined;
	readonly #onConnection: EnvironmentsOptions["onConnection"];
	#config: EnvsConfig;
	readonly #ssh = new Map<string, SshEnvironment>();
	/** The keys the last test offered, by environment: only exactly those can be accepted. */
	readonly #offers = new Map<string, readonly HostKey[]>();
	#controlDir: string | null = null;
	readonly #listeners = new Set<() => void>();

	constructor(options: EnvironmentsOptions) {
		this.#dataDir = options.dataDir;
		this.#home = options.home ?? homedir();
		this.#persistSeconds = options.persistSeconds;
		this.#onConnection = options.onConnection;
		this.local = new LocalEnvironment(this.#home);
		this.knownHostsFile = join(options.dataDir, KNOWN_HOSTS_FILE);
		this.#config = readEnvsConfig(options.dataDir);
	}

	/** Reads envs.json again; machines whose entry changed or went get their connection closed. */
	reload(): void {
		this.#config = readEnvsConfig(this.#dataDir);
		for (const [name, env] of this.#ssh) {
			const now = this.#config.environments.find((c) => c.name === name);
			if (!now || !sameConfig(now, env.config)) {
				this.#ssh.delete(name);
				void env.close();
			}
		}
		for (const listener of this.#listeners) listener();
	}

	/** Told after envs.json was read again; returns the unsubscribe. */
	onChange(listener: () => void): () => void {
		this.#listeners.add(listener);
		return () => this.#listeners.delete(listener);
	}

	/** What is wrong with envs.json, when it could not be used. */
	get problem(): string | null {
		return this.#config.problem;
	}

	/** The configured SSH machines, in the file's order. */
	configured(): readonly SshEnvConfig[] {
		return this.#config.environments;
	}

	has(name: string): boolean {
		return name === LOCAL_ENV || this.#config.environments.some((c) => c.name === name);
	}

	/** The environment by name; an unknown name is refused in words the person can act on. */
	get(name: string): Environment {
		if (name === LOCAL_ENV) return this.local;
		return this.#sshOf(name);
	}

	#sshOf(name: string): SshEnvironment {
		const config = this.#config.environments.find((c) => c.name === name);
		if (!config) throw new ProtocolError("not_found", `Unknown environment ${name} (not in envs.json)`);
		let env = this.#ssh.get(name);
		if (!env) {
			env = new SshEnvironment(config, {
				knownHosts: this.knownHostsFile,
				controlDir: this.#control(),
				localHome: this.#home,
				...(this.#persistSeconds === undefined ? {} : { persistSeconds: this.#persistSeconds }),
				onConnection: (trouble) => this.#onConnection?.(name, trouble),
			});
			this.#ssh.set(name, env);
		}
		return env;
	}

	/** A short private directory for ssh's control sockets (their paths must stay under ~100 bytes). */
	#control(): string {
		this.#controlDir ??= mkdtempSync(join(tmpdir(), "p2ssh-"));
		return this.#controlDir;
	}

	/** Connects and says how it went; a host key that stopped it comes with the fingerprints to review. */
	async test(name: string): Promise<TestResult> {
		if (name === LOCAL_ENV) return { ok: true, home: await this.local.home(), ms: 0 };
		const env = this.#sshOf(name);
		const started = performance.now();
		try {
			const home = await env.probe();
			return { ok: true, home, ms: Math.round(performance.now() - started) };
		} catch (error) {
			if (!(error instanceof EnvConnectionError) || error.hostKey === null)
				return { ok: false, error: errorText(error) };
			const { host, port } = env.config;
			const offered = await scanHostKeys(host, port).catch(() => []);
			this.#offers.set(name, offered);
			return {
				ok: false,
				error: error.message,
				hostKey: { status: error.hostKey, offered, known: knownKeys(this.knownHostsFile, hostToken(host, port)) },
			};
		}
	}

	/**
	 * Trusts the keys the last test offered, when `fingerprints` are exactly theirs (what the owner was shown);
	 * the machine's earlier keys are replaced.
	 */
	acceptKey(name: string, fingerprints: readonly string[]): void {
		const env = this.#sshOf(name);
		const offered = this.#offers.get(name);
		const shown = [...fingerprints].sort().join(" ");
		if (
			!offered ||
			offered.length === 0 ||
			offered
				.map((k) => k.fingerprint)
				.sort()
				.join(" ") !== shown
		) {
			throw new ProtocolError("conflict", `The host key of ${name} changed since it was shown; test again (Ctrl+T).`);
		}
		setKnownKeys(this.knownHostsFile, hostToken(env.config.host, env.config.port), offered);
		this.#offers.delete(name);
	}

	/** Forgets the machine's keys: the next connection stops until a key is accepted again. */
	async forgetKey(name: string): Promise<void> {
		const env = this.#sshOf(name);
		setKnownKeys(this.knownHostsFile, hostToken(env.config.host, env.config.port), []);
		this.#ssh.delete(name);
		await env.close();
	}

	/** The keys trusted for the machine now. */
	trusted(name: string): readonly HostKey[] {
		const env = this.#sshOf(name);
		return knownKeys(this.knownHostsFile, hostToken(env.config.host, env.config.port));
	}

	async close(): Promise<void> {
		const all = [...this.#ssh.values()];
		this.#ssh.clear();
		await Promise.all(all.map((env) => env.close()));
		if (this.#controlDir) rmSync(this.#controlDir, { recursive: true, force: true });
		this.#controlDir = null;
	}
}
