/**
 * Environments for owners: this device and envs.json's SSH machines, the last test of each,
 * host-key review (accept exactly what was shown, forget), and folder listings for choosing where a session
 * goes. The machines themselves are the core's (`ctx.environments`): the tools run through them.
 */
import { posix } from "node:path";
import { ProtocolError } from "../../protocol/codes.ts";
import { LiveState, pathProblem, type ServerContext, type ServerPlugin, type TestResult } from "../../server/plugin.ts";
import { type EnvsState, type EnvView, envsContract, MAX_LISTED, type TestView } from "./contract.ts";

function testView(result: TestResult): TestView {
	const at = Date.now();
	if (result.ok) return { ok: true, message: `Connected in ${result.ms} ms · home ${result.home}`, at };
	const view: TestView = { ok: false, message: result.error.slice(0, 2000), at };
	if (!result.hostKey) return view;
	const key = (k: { type: string; fingerprint: string }) => ({ type: k.type, fingerprint: k.fingerprint });
	return {
		...view,
		hostKey: {
			status: result.hostKey.status,
			offered: result.hostKey.offered.slice(0, 16).map(key),
			known: result.hostKey.known.slice(0, 16).map(key),
		},
	};
}

class EnvsObject {
	readonly #ctx: ServerContext;
	readonly #tests = new Map<string, TestView>();
	readonly live: LiveState<EnvsState>;

	constructor(ctx: ServerContext) {
		this.#ctx = ctx;
		this.live = new LiveState(this.#state());
	}

	#state(): EnvsState {
		const envs = this.#ctx.environments;
		const local: EnvView = { name: "local", address: "this device", directory: null, test: null };
		const machines = envs.configured().map((c) => ({
			name: c.name,
			address: `${c.user ? `${c.user}@` : ""}${c.host}${c.port === 22 ? "" : `:${c.port}`}`,
			directory: c.directory,
			test: this.#tests.get(c.name) ?? null,
		}));
		return { environments: [local, ...machines], problem: envs.problem };
	}

	refresh(): void {
		this.live.update([{ op: "set", path: [], value: this.#state() }]);
	}

	async test(name: string): Promise<TestView> {
		const view = testView(await this.#ctx.environments.test(name));
		if (name !== "local") this.#tests.set(name, view);
		this.refresh();
		this.#ctx.log.info("server", `environment ${name} tested: ${view.ok ? "connected" : "not connected"}`);
		return view;
	}

	acceptKey(name: string, fingerprints: readonly string[]): null {
		this.#ctx.environments.acceptKey(name, fingerprints);
		this.#ctx.log.info("server", `the host key of environment ${name} was accepted (${fingerprints.join(", ")})`);
		this.#tests.delete(name);
		this.refresh();
		return null;
	}

	async forgetKey(name: string): Promise<null> {
		if (name === "local") throw new ProtocolError("bad_args", "this device has no host key");
		await this.#ctx.environments.forgetKey(name);
		this.#ctx.log.info("server", `the host key of environment ${name} was forgotten`);
		this.#tests.delete(name);
		this.refresh();
		return null;
	}

	/** The folders of a directory there (`~` is that machine's home), for choosing where a session goes. */
	async listDirectory(name: string, path: string) {
		const env = this.#ctx.environments.get(name);
		try {
			const home = await env.home();
			const dir = await env.directory(path);
			const folders = (await env.listDirectory(dir))
				.filter((e) => e.dir)
				.map((e) => e.name)
				.sort();
			return {
				path: dir,
				home,
				folders: folders.slice(0, MAX_LISTED).map((f) => f.slice(0, 1024)),
				truncated: folders.length > MAX_LISTED,
			};
		} catch (error) {
			throw pathProblem(error, name, posix.normalize(path));
		}
	}
}

const ENV_KEY = "env:";
const RECONNECT = "env.reconnect";

/**
 * A machine that cannot be reached, or whose host key changed or is not verified yet, is a notice for the owner
 * (once per trouble, under the machine's source), with /retry connecting again; a connection that works again
 * ends it.
 */
function keepNotices(ctx: ServerContext): () => void {
	const current = new Map<string, string>();
	const offConnection = ctx.bus.on("env.connection", ({ name, trouble }) => {
		const key = `${ENV_KEY}${name}`;
		if (trouble === null) {
			if (current.delete(name)) ctx.log.resolve(key, key, `connected to ${name} again`);
			return;
		}
		if (current.get(name) === trouble) return;
		current.set(name, trouble);
		ctx.log.warn(key, trouble, { key, retry: RECONNECT });
	});
	const offRetry = ctx.log.onRetry(RECONNECT, async (key) => {
		const name = key.slice(ENV_KEY.length);
		if (!ctx.environments.has(name)) return `${name} is no longer in envs.json.`;
		const result = await ctx.environments.test(name);
		return result.ok ? `Connected to ${name} again.` : result.error;
	});
	return () => {
		offConnection();
		offRetry();
	};
}

export function envsPlugin(): ServerPlugin {
	let stop = () => {};
	return {
		name: "envs",
		register(ctx) {
			const envs = new EnvsObject(ctx);
			// The core reads envs.json again when it changes; the list follows.
			const off = ctx.environments.onChange(() => envs.refresh());
			const offNotices = keepNotices(ctx);
			stop = () => {
				off();
				offNotices();
			};
			ctx.host.serve(envsContract, {
				open: () => ({
					state: envs.live,
					methods: {
						test: ({ name }) => envs.test(name),
						acceptKey: ({ name, fingerprints }) => envs.acceptKey(name, fingerprints),
						forgetKey: ({ name }) => envs.forgetKey(name),
						listDirectory: ({ env, path }) => envs.listDirectory(env, path),
					},
				}),
			});
		},
		close() {
			stop();
		},
	};
}
