import { join } from "node:path";
import type { AuthEvent, AuthPrompt, Provider } from "@earendil-works/pi-ai";
import { ProtocolError } from "../../protocol/codes.ts";
import { errorText } from "../../protocol/errors.ts";
import { AUTH_FILE, LiveState, type ServerContext, type ServerPlugin } from "../../server/plugin.ts";
import {
	type AnswerArgs,
	type AuthMethod,
	type FlowArgs,
	type LoginEvent,
	type LoginFlow,
	type LoginProvider,
	type LoginState,
	loginContract,
	type ProviderArgs,
	type StartArgs,
} from "./contract.ts";

const MAX_EVENTS = 20;
const clip = (text: string, n: number) => text.replace(/[\p{Cc}\p{Cf}]+/gu, " ").slice(0, n);

/** pi-ai's event, bounded and as plain text. */
function eventOf(event: AuthEvent): LoginEvent | undefined {
	switch (event.type) {
		case "info":
			return {
				type: "info",
				message: clip(event.message, 2000),
				...(event.links?.length
					? {
							links: event.links
								.slice(0, 5)
								.map((l) => ({ url: clip(l.url, 4096), ...(l.label ? { label: clip(l.label, 200) } : {}) })),
						}
					: {}),
			};
		case "auth_url":
			return {
				type: "auth_url",
				url: clip(event.url, 4096),
				...(event.instructions ? { instructions: clip(event.instructions, 2000) } : {}),
			};
		case "device_code":
			return {
				type: "device_code",
				userCode: clip(event.userCode, 100),
				verificationUri: clip(event.verificationUri, 4096),
				...(event.expiresInSeconds ? { expiresInSeconds: event.expiresInSeconds } : {}),
			};
		case "progress":
			return { type: "progress", message: clip(event.message, 2000) };
		default:
			return undefined;
	}
}

interface RunningFlow {
	readonly id: string;
	readonly abort: AbortController;
	/** What this person typed in answer: kept only to blank it out of error messages. */
	readonly answers: string[];
	pending: { id: string; resolve(value: string): void; reject(error: Error): void } | undefined;
}

/** One sign-in at a time for the server's owners, run by pi-ai, with questions answered over the object. */
class LoginService {
	readonly #ctx: ServerContext;
	readonly live = new LiveState<LoginState>({ providers: [], flow: null });
	#running: RunningFlow | undefined;
	#count = 0;

	constructor(ctx: ServerContext) {
		this.#ctx = ctx;
	}

	async refreshProviders(): Promise<void> {
		const registry = this.#ctx.models.registry;
		const rows: LoginProvider[] = [];
		for (const provider of registry.getProviders() as readonly Provider[]) {
			const apiKey = provider.auth.apiKey?.login ? { name: provider.auth.apiKey.name } : null;
			const oauth = provider.auth.oauth
				? {
						name: provider.auth.oauth.name,
						...(provider.auth.oauth.loginLabel ? { label: provider.auth.oauth.loginLabel } : {}),
						subscription: provider.auth.oauth.isSubscription === true,
					}
				: null;
			if (!apiKey && !oauth) continue;
			const check = await registry.checkAuth(provider.id).catch(() => undefined);
			rows.push({
				id: provider.id,
				name: provider.name,
				apiKey,
				oauth,
				signedIn: check?.type ?? null,
				source: check?.source ?? null,
			});
		}
		rows.sort((a, b) => a.name.localeCompare(b.name));
		this.live.update([{ op: "set", path: ["providers"], value: rows }]);
	}

	#setFlow(flow: LoginFlow | null): void {
		this.live.update([{ op: "set", path: ["flow"], value: flow }]);
	}

	#patchFlow(id: string, change: (flow: LoginFlow) => LoginFlow): void {
		const flow = this.live.state.flow;
		if (flow?.id === id) this.#setFlow(change(flow));
	}

	start(args: typeof StartArgs.infer): { flow: string } {
		if (this.#running) throw new ProtocolError("conflict", "a sign-in is already running; cancel it first");
		const registry = this.#ctx.models.registry;
		const provider = registry.getProvider(args.provider);
		if (!provider) throw new ProtocolError("not_found", `no provider ${args.provider}`);
		const method = args.method === "oauth" ? provider.auth.oauth : provider.auth.apiKey;
		if (!method?.login) throw new ProtocolError("bad_args", `${provider.name} has no ${label(args.method)} sign-in`);
		const running: RunningFlow = {
			id: `login-${++this.#count}-${crypto.randomUUID().slice(0, 8)}`,
			abort: new AbortController(),
			answers: [],
			pending: undefined,
		};
		this.#running = running;
		this.#setFlow({
			id: running.id,
			provider: provider.id,
			method: args.method,
			status: "running",
			events: [],
			prompt: null,
		});
		void this.#run(running, provider.id, args.method);
		return { flow: running.id };
	}

	async #run(running: RunningFlow, provider: string, method: AuthMethod): Promise<void> {
		const registry = this.#ctx.models.registry;
		let prompts = 0;
		// pi picks a model after a sign-in only when there was none to use.
		const hadModels = this.#ctx.models.usable().length > 0;
		let changed = false;
		try {
			await registry.login(
				provider,
				method,
				{
					signal: running.abort.signal,
					notify: (event) => {
						const shown = eventOf(event);
						if (!shown) return;
						this.#patchFlow(running.id, (flow) => ({ ...flow, events: [...flow.events, shown].slice(-MAX_EVENTS) }));
					},
					prompt: (prompt: AuthPrompt) =>
						new Promise<string>((resolve, reject) => {
							const id = `p${++prompts}`;
							running.pending = {
								id,
								resolve: (value) => {
									running.answers.push(value);
									running.pending = undefined;
									this.#patchFlow(running.id, (flow) => ({ ...flow, prompt: null }));
									resolve(value);
								},
								reject,
							};
							prompt.signal?.addEventListener(
								"abort",
								() => {
									if (running.pending?.id !== id) return;
									running.pending = undefined;
									this.#patchFlow(running.id, (flow) => ({ ...flow, prompt: null }));
									reject(new Error("the question was withdrawn"));
								},
								{ once: true },
							);
							this.#patchFlow(running.id, (flow) => ({
								...flow,
								prompt: {
									id,
									type: prompt.type,
									message: clip(prompt.message, 2000),
									...("placeholder" in prompt && prompt.placeholder
										? { placeholder: clip(prompt.placeholder, 200) }
										: {}),
									...(prompt.type === "select"
										? {
												options: prompt.options.map((o) => ({
													id: o.id,
													label: clip(o.label, 200),
													...(o.description ? { description: clip(o.description, 500) } : {}),
												})),
											}
										: {}),
								},
							}));
						}),
				},
				{ agentName: "p2" },
			);
			running.answers.length = 0;
			changed = true;
			const selected = await this.#changed(hadModels ? undefined : provider);
			this.#patchFlow(running.id, (flow) => ({
				...flow,
				status: "done",
				prompt: null,
				savedTo: join(this.#ctx.dataDir, AUTH_FILE),
				...(selected === undefined ? {} : { selected }),
			}));
		} catch (error) {
			const cancelled = running.abort.signal.aborted;
			let message = errorText(error);
			// A provider may repeat what it was given ("invalid key sk-…"): an answer is never shown back.
			for (const answer of running.answers) if (answer.length >= 4) message = message.split(answer).join("•••");
			this.#patchFlow(running.id, (flow) => ({
				...flow,
				status: cancelled ? "cancelled" : "failed",
				prompt: null,
				...(cancelled ? {} : { error: clip(message, 500) }),
			}));
		} finally {
			running.answers.length = 0;
			if (this.#running === running) this.#running = undefined;
			if (!changed) await this.#changed();
		}
	}

	answer(args: typeof AnswerArgs.infer): null {
		const running = this.#running;
		if (!running || running.id !== args.flow) throw new ProtocolError("not_found", "no such sign-in");
		if (running.pending?.id !== args.prompt) throw new ProtocolError("conflict", "that question is no longer asked");
		running.pending.resolve(args.value);
		return null;
	}

	cancel(args: typeof FlowArgs.infer): null {
		const running = this.#running;
		if (running?.id === args.flow) {
			running.pending?.reject(new Error("cancelled"));
			running.abort.abort(new Error("cancelled"));
		}
		return null;
	}

	async logout(args: typeof ProviderArgs.infer): Promise<null> {
		if (!this.#ctx.models.registry.getProvider(args.provider)) {
			throw new ProtocolError("not_found", `no provider ${args.provider}`);
		}
		await this.#ctx.models.registry.logout(args.provider);
		await this.#changed();
		return null;
	}

	/**
	 * What is usable changed: the catalog and the provider list are read again. With `selectFrom`, the first
	 * usable model of that provider becomes the server's default (pi persists it too), so sessions that had no
	 * model use it at once; returns its id, or null when the provider has none.
	 */
	async #changed(selectFrom?: string): Promise<string | null | undefined> {
		await this.#ctx.models.reload();
		let selected: string | null | undefined;
		if (selectFrom !== undefined) {
			const model = this.#ctx.models.usable().find((m) => m.provider === selectFrom);
			selected = model?.id ?? null;
			try {
				if (model) this.#ctx.settings.update({ defaultModel: { provider: model.provider, id: model.id } });
			} catch (error) {
				// A settings.json that cannot be used is left alone; the model is still the first usable one.
				this.#ctx.log.warn("server", `the default model was not saved: ${errorText(error)}`);
			}
		}
		this.#ctx.bus.emit({ type: "models.changed" });
		await this.refreshProviders();
		return selected;
	}
}

function label(method: AuthMethod): string {
	return method === "oauth" ? "account" : "API key";
}

export const loginPlugin: ServerPlugin = {
	name: "login",
	register(ctx) {
		const service = new LoginService(ctx);
		let listed: Promise<void> | undefined;
		ctx.host.serve(loginContract, {
			async open() {
				listed ??= service.refreshProviders();
				await listed;
				return {
					state: service.live,
					methods: {
						start: (args) => service.start(args),
						answer: (args) => service.answer(args),
						cancel: (args) => service.cancel(args),
						logout: (args) => service.logout(args),
					},
				};
			},
		});
	},
};
