import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { StreamFn } from "@earendil-works/pi-agent-core";
import type { Api, Model, Provider, ProviderStreams } from "@earendil-works/pi-ai";
import { anthropicMessagesApi } from "@earendil-works/pi-ai/api/anthropic-messages.lazy";
import { googleGenerativeAIApi } from "@earendil-works/pi-ai/api/google-generative-ai.lazy";
import { mistralConversationsApi } from "@earendil-works/pi-ai/api/mistral-conversations.lazy";
import { openAICompletionsApi } from "@earendil-works/pi-ai/api/openai-completions.lazy";
import { openAIResponsesApi } from "@earendil-works/pi-ai/api/openai-responses.lazy";
import { getEnvApiKey } from "@earendil-works/pi-ai/compat";
import { builtinProviders } from "@earendil-works/pi-ai/providers/all";
import { type } from "arktype";

export const MODELS_FILE = "models.json";

type Env = Record<string, string | undefined>;

/** The models this server can use now, and how to stream from them with the right credentials. */
export interface ModelCatalog {
	/** Built-in providers with credentials in the environment, plus every model of models.json's providers. */
	usable(): readonly Model<Api>[];
	find(provider: string, id: string): Model<Api> | undefined;
	/** What is wrong with the configuration (a bad models.json never throws; its valid providers still load). */
	problems(): readonly string[];
	/** Re-reads the environment and models.json. */
	reload(): Promise<void>;
	readonly streamFn: StreamFn;
}

// pi's models.json (~/.pi/agent/models.json): providers by name, each with its api, baseUrl, key and models.
const ModelEntry = type({
	id: "string > 0",
	"name?": "string > 0",
	"api?": "string > 0",
	"baseUrl?": "string > 0",
	"reasoning?": "boolean",
	"input?": "('text' | 'image')[]",
	"cost?": { "input?": "number", "output?": "number", "cacheRead?": "number", "cacheWrite?": "number" },
	"contextWindow?": "number > 0",
	"maxTokens?": "number > 0",
	"headers?": "Record<string, string>",
	"compat?": "Record<string, unknown>",
	"thinkingLevelMap?": "Record<string, unknown>",
	"samplingParams?": "Record<string, unknown>",
	"+": "ignore",
});
const ProviderEntry = type({
	"name?": "string > 0",
	"baseUrl?": "string > 0",
	"apiKey?": "string > 0",
	"api?": "string > 0",
	"headers?": "Record<string, string>",
	"compat?": "Record<string, unknown>",
	"authHeader?": "boolean",
	"models?": "unknown[]",
	"modelOverrides?": "Record<string, unknown>",
	"+": "ignore",
});
const ModelsFile = type({ "$schema?": "string", providers: "Record<string, unknown>", "+": "ignore" });

/** The stream implementations a models.json provider may name. */
const APIS: Record<string, () => ProviderStreams> = {
	"openai-completions": openAICompletionsApi,
	"openai-responses": openAIResponsesApi,
	"anthropic-messages": anthropicMessagesApi,
	"google-generative-ai": googleGenerativeAIApi,
	"mistral-conversations": mistralConversationsApi,
};

/**
 * pi's config values: `$NAME` or `${NAME}` read the environment, `$$` is a literal `$`, anything else is
 * literal. pi's `!command` form is refused here: a server does not run commands from a config value.
 */
export function resolveConfigValue(value: string, env: Env): string | undefined {
	if (value.startsWith("!")) return undefined;
	let missing = false;
	const out = value.replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (m, braced, bare) => {
		if (m === "$$") return "$";
		const v = env[braced ?? bare];
		if (v === undefined || v === "") missing = true;
		return v ?? "";
	});
	return missing ? undefined : out;
}

interface Custom {
	readonly model: Model<Api>;
	readonly streams: ProviderStreams;
	readonly apiKey: string | undefined;
	readonly headers: Record<string, string>;
}

interface Loaded {
	readonly builtin: Map<string, { provider: Provider; apiKey: string; models: Model<Api>[] }>;
	readonly custom: Map<string, Custom>;
	readonly usable: Model<Api>[];
	readonly problems: string[];
}

const key = (provider: string, id: string) => `${provider}\u0000${id}`;

function loadCustom(dataDir: string, env: Env, problems: string[]): Custom[] {
	let text: string;
	try {
		text = readFileSync(join(dataDir, MODELS_FILE), "utf8");
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== "ENOENT")
			problems.push(`${MODELS_FILE}: ${(error as Error).message}`);
		return [];
	}
	let json: unknown;
	try {
		json = JSON.parse(text.replace(/^\uFEFF/, ""));
	} catch (error) {
		problems.push(`${MODELS_FILE}: not valid JSON (${(error as Error).message})`);
		return [];
	}
	const file = ModelsFile(json);
	if (file instanceof type.errors) {
		problems.push(`${MODELS_FILE}: ${file.summary}`);
		return [];
	}
	const out: Custom[] = [];
	for (const [name, raw] of Object.entries(file.providers)) {
		const p = ProviderEntry(raw);
		if (p instanceof type.errors) {
			problems.push(`${MODELS_FILE}: providers.${name}: ${p.summary}`);
			continue;
		}
		const apiKey = p.apiKey === undefined ? undefined : resolveConfigValue(p.apiKey, env);
		if (p.apiKey?.startsWith("!"))
			problems.push(`${MODELS_FILE}: providers.${name}.apiKey: commands are not run by the server`);
		const headers: Record<string, string> = {};
		for (const [h, v] of Object.entries(p.headers ?? {})) {
			const resolved = resolveConfigValue(v, env);
			if (resolved !== undefined) headers[h] = resolved;
		}
		if (p.authHeader && apiKey) headers.authorization = `Bearer ${apiKey}`;
		for (const [i, rawModel] of (p.models ?? []).entries()) {
			const m = ModelEntry(rawModel);
			const where = `${MODELS_FILE}: providers.${name}.models[${i}]`;
			if (m instanceof type.errors) {
				problems.push(`${where}: ${m.summary}`);
				continue;
			}
			const api = m.api ?? p.api;
			const baseUrl = m.baseUrl ?? p.baseUrl;
			if (!api) {
				problems.push(`${where}: "api" is required (on the model or its provider)`);
				continue;
			}
			const streams = APIS[api];
			if (!streams) {
				problems.push(`${where}: api "${api}" is not supported; use one of ${Object.keys(APIS).join(", ")}`);
				continue;
			}
			if (!baseUrl) {
				problems.push(`${where}: "baseUrl" is required (on the model or its provider)`);
				continue;
			}
			const model = {
				id: m.id,
				name: m.name ?? m.id,
				api,
				provider: name,
				baseUrl,
				reasoning: m.reasoning ?? false,
				input: m.input ?? ["text"],
				cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, ...m.cost },
				contextWindow: m.contextWindow ?? 128000,
				maxTokens: m.maxTokens ?? 16384,
				...(m.headers ? { headers: m.headers } : {}),
				...(m.compat ? { compat: m.compat } : p.compat ? { compat: p.compat } : {}),
				...(m.thinkingLevelMap ? { thinkingLevelMap: m.thinkingLevelMap } : {}),
				...(m.samplingParams ? { samplingParams: m.samplingParams } : {}),
			} as Model<Api>;
			out.push({ model, streams: streams(), apiKey, headers });
		}
	}
	return out;
}

function load(dataDir: string, env: Env): Loaded {
	const problems: string[] = [];
	const builtin: Loaded["builtin"] = new Map();
	for (const provider of builtinProviders()) {
		const apiKey = getEnvApiKey(provider.id, env as Record<string, string>);
		if (!apiKey) continue;
		builtin.set(provider.id, { provider, apiKey, models: [...provider.getModels()] });
	}
	const custom = new Map<string, Custom>();
	for (const c of loadCustom(dataDir, env, problems)) custom.set(key(c.model.provider, c.model.id), c);
	const usable = [...[...builtin.values()].flatMap((b) => b.models), ...[...custom.values()].map((c) => c.model)].sort(
		(a, b) => a.provider.localeCompare(b.provider) || a.id.localeCompare(b.id),
	);
	return { builtin, custom, usable, problems };
}

export async function loadModelCatalog(options: { dataDir: string; env?: Env }): Promise<ModelCatalog> {
	const env = options.env ?? process.env;
	let loaded = load(options.dataDir, env);
	const streamFn: StreamFn = (model, context, streamOptions) => {
		const custom = loaded.custom.get(key(model.provider, model.id));
		if (custom) {
			return custom.streams.streamSimple(model, context, {
				...streamOptions,
				// A local endpoint may need no key, but the api refuses a request without one.
				apiKey: custom.apiKey ?? "p2-no-key",
				headers: { ...custom.headers, ...streamOptions?.headers },
			});
		}
		const builtin = loaded.builtin.get(model.provider);
		if (!builtin) throw new Error(`No API key found for ${model.provider}.`);
		return builtin.provider.streamSimple(model, context, { ...streamOptions, apiKey: builtin.apiKey });
	};
	return {
		usable: () => loaded.usable,
		find: (provider, id) => loaded.usable.find((m) => m.provider === provider && m.id === id),
		problems: () => loaded.problems,
		async reload() {
			loaded = load(options.dataDir, env);
		},
		streamFn,
	};
}
