import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { StreamFn } from "@earendil-works/pi-agent-core";
import {
	type Api,
	type AuthContext,
	createModels,
	createProvider,
	getSupportedThinkingLevels,
	type Model,
	type MutableModels,
	type Provider,
	type ProviderStreams,
} from "@earendil-works/pi-ai";
import { anthropicMessagesApi } from "@earendil-works/pi-ai/api/anthropic-messages.lazy";
import { googleGenerativeAIApi } from "@earendil-works/pi-ai/api/google-generative-ai.lazy";
import { mistralConversationsApi } from "@earendil-works/pi-ai/api/mistral-conversations.lazy";
import { openAICompletionsApi } from "@earendil-works/pi-ai/api/openai-completions.lazy";
import { openAIResponsesApi } from "@earendil-works/pi-ai/api/openai-responses.lazy";
import { builtinProviders } from "@earendil-works/pi-ai/providers/all";
import { type } from "../../protocol/ark.ts";
import { THINKING_LEVELS, type ThinkingLevel } from "../../protocol/common.ts";
import { errorText } from "../../protocol/errors.ts";
import { checkWith } from "../checks.ts";
import { fileLabel, readJsonFile, shapeProblems } from "../json-file.ts";
import { AUTH_FILE, FileCredentialStore } from "./credentials.ts";

export const MODELS_FILE = "models.json";
// The keys of models.json's schemas among the server's precompiled validators.
export const MODELS_FILE_KEY = "models.json/file";
export const MODELS_PROVIDER_KEY = "models.json/provider";
export const MODELS_MODEL_KEY = "models.json/model";

/** The thinking levels a model offers, in pi's order: "off" only when it does not reason. */
export function thinkingLevelsOf(model: Model<Api>): ThinkingLevel[] {
	if (!model.reasoning) return ["off"];
	const supported = new Set<string>(getSupportedThinkingLevels(model));
	supported.add("off");
	return THINKING_LEVELS.filter((level) => supported.has(level));
}

type Env = Record<string, string | undefined>;

/** The models this server can use now, and how to stream from them with the right credentials. */
export interface ModelCatalog {
	/** Models whose provider has credentials: built-in ones (environment or login) and models.json's. */
	usable(): readonly Model<Api>[];
	find(provider: string, id: string): Model<Api> | undefined;
	/** What is wrong with the configuration (a bad models.json never throws; its valid providers still load). */
	problems(): readonly string[];
	/** Re-reads models.json and the credentials, and what they make usable. */
	reload(): Promise<void>;
	readonly streamFn: StreamFn;
	/** pi-ai's registry, for signing in and out (the login plugin). */
	readonly registry: MutableModels;
}

// pi's models.json (~/.pi/agent/models.json): providers by name, each with its api, baseUrl, key and models.
export const ModelEntry = type({
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
export const ProviderEntry = type({
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
export const ModelsFile = type({ "$schema?": "string", providers: "Record<string, unknown>", "+": "ignore" });

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

interface CustomProvider {
	readonly provider: Provider;
	readonly models: Model<Api>[];
}

function loadCustom(dataDir: string, env: Env, problems: string[]): CustomProvider[] {
	const path = join(dataDir, MODELS_FILE);
	const label = fileLabel(path);
	const read = readJsonFile(path, { label });
	if ("missing" in read) return [];
	if ("problem" in read) {
		problems.push(read.problem);
		return [];
	}
	const file = checkWith(MODELS_FILE_KEY, ModelsFile, read.value);
	if (file instanceof type.errors) {
		problems.push(...shapeProblems(file).map((p) => `${label}: ${p}`));
		return [];
	}
	const out: CustomProvider[] = [];
	for (const [name, raw] of Object.entries(file.providers)) {
		const p = checkWith(MODELS_PROVIDER_KEY, ProviderEntry, raw);
		if (p instanceof type.errors) {
			problems.push(...shapeProblems(p, ["providers", name]).map((s) => `${label}: ${s}`));
			continue;
		}
		const apiKey = p.apiKey === undefined ? undefined : resolveConfigValue(p.apiKey, env);
		if (p.apiKey?.startsWith("!"))
			problems.push(`${label}: providers.${name}.apiKey: commands are not run by the server`);
		const headers: Record<string, string> = {};
		for (const [h, v] of Object.entries(p.headers ?? {})) {
			const resolved = resolveConfigValue(v, env);
			if (resolved !== undefined) headers[h] = resolved;
		}
		if (p.authHeader && apiKey) headers.authorization = `Bearer ${apiKey}`;
		const models: Model<Api>[] = [];
		const apis: Record<string, ProviderStreams> = {};
		for (const [i, rawModel] of (p.models ?? []).entries()) {
			const m = checkWith(MODELS_MODEL_KEY, ModelEntry, rawModel);
			const where = `${label}: providers.${name}.models[${i}]`;
			if (m instanceof type.errors) {
				problems.push(...shapeProblems(m, ["providers", name, "models", i]).map((s) => `${label}: ${s}`));
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
			apis[api] ??= streams();
			models.push({
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
				headers: { ...headers, ...m.headers },
				...(m.compat ? { compat: m.compat } : p.compat ? { compat: p.compat } : {}),
				...(m.thinkingLevelMap ? { thinkingLevelMap: m.thinkingLevelMap } : {}),
				...(m.samplingParams ? { samplingParams: m.samplingParams } : {}),
			} as Model<Api>);
		}
		if (!models.length) continue;
		const provider = createProvider({
			id: name,
			name: p.name ?? name,
			models,
			api: apis,
			// The key is the file's (or none: a local endpoint may need none, but the api refuses a request without).
			auth: {
				apiKey: {
					name: `${p.name ?? name} (models.json)`,
					resolve: async () => ({ auth: { apiKey: apiKey ?? "p2-no-key" }, source: MODELS_FILE }),
				},
			},
		});
		out.push({ provider, models });
	}
	return out;
}

/** Auth resolution reads the server's environment as given (tests give their own) and checks files plainly. */
function authContext(env: Env): AuthContext {
	return {
		env: async (name) => env[name] || undefined,
		fileExists: async (path) => existsSync(path.startsWith("~") ? join(env.HOME ?? homedir(), path.slice(1)) : path),
	};
}

export interface CatalogOptions {
	readonly dataDir: string;
	readonly env?: Env;
	/** Providers beside pi-ai's built-ins and models.json's (tests: a fake provider with its own login). */
	readonly providers?: readonly Provider[];
}

/**
 * pi-ai's model registry: its built-in providers, models.json's, and the credentials signed in on this server
 * (`<data>/auth.json`, 0600). A model is usable when its provider's credentials resolve: an environment
 * variable, models.json, or a login.
 */
export async function loadModelCatalog(options: CatalogOptions): Promise<ModelCatalog> {
	const env = options.env ?? process.env;
	const credentials = new FileCredentialStore(join(options.dataDir, AUTH_FILE));
	const registry = createModels({ credentials, authContext: authContext(env) });
	let usable: Model<Api>[] = [];
	let problems: string[] = [];
	const load = async () => {
		const found: string[] = [];
		registry.clearProviders();
		for (const provider of builtinProviders()) registry.setProvider(provider);
		for (const custom of loadCustom(options.dataDir, env, found)) registry.setProvider(custom.provider);
		for (const provider of options.providers ?? []) registry.setProvider(provider);
		const available = await registry.getAvailable().catch((error: unknown) => {
			found.push(`credentials: ${errorText(error)}`);
			return [] as Model<Api>[];
		});
		usable = [...available].sort((a, b) => a.provider.localeCompare(b.provider) || a.id.localeCompare(b.id));
		problems = [...found, ...credentials.problems()];
	};
	await load();
	const streamFn: StreamFn = (model, context, streamOptions) => registry.streamSimple(model, context, streamOptions);
	return {
		usable: () => usable,
		find: (provider, id) => usable.find((m) => m.provider === provider && m.id === id),
		problems: () => problems,
		reload: load,
		streamFn,
		registry,
	};
}
