import { type Api, createProvider, envApiKeyAuth, type Model, type Provider } from "@earendil-works/pi-ai";
import { openAICompletionsApi } from "@earendil-works/pi-ai/api/openai-completions.lazy";

const model = (provider: string, id: string, baseUrl: string) =>
	({
		id,
		name: id,
		api: "openai-completions",
		provider,
		baseUrl,
		reasoning: false,
		input: ["text"],
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
		contextWindow: 32000,
		maxTokens: 1000,
	}) as Model<Api>;

/** A provider signed in with an API key (pi-ai's standard secret prompt), at the fake endpoint. */
export function keyedProvider(baseUrl: string): Provider {
	return createProvider({
		id: "keyed",
		name: "Keyed Provider",
		models: [model("keyed", "keyed-model", baseUrl)],
		api: { "openai-completions": openAICompletionsApi() },
		auth: { apiKey: envApiKeyAuth("Keyed API key", ["KEYED_API_KEY"]) },
	});
}

/**
 * A loopback OAuth flow: an authorization URL on a local server, a code pasted back, exchanged at the local
 * token endpoint for an access token that signs requests.
 */
export function loopbackOAuthProvider(baseUrl: string, authServer: { origin: string }): Provider {
	return createProvider({
		id: "loopy",
		name: "Loopy Cloud",
		models: [model("loopy", "loopy-model", baseUrl)],
		api: { "openai-completions": openAICompletionsApi() },
		auth: {
			oauth: {
				name: "Loopy account",
				loginLabel: "Sign in with Loopy",
				isSubscription: true,
				async login(interaction) {
					interaction.notify({
						type: "auth_url",
						url: `${authServer.origin}/authorize?client=p2`,
						instructions: "Open it and sign in",
					});
					interaction.notify({ type: "progress", message: "Waiting for the code…" });
					const code = await interaction.prompt({ type: "manual_code", message: "Paste the code from the page" });
					const res = await fetch(`${authServer.origin}/token`, {
						method: "POST",
						body: code,
						signal: interaction.signal,
					});
					if (!res.ok) throw new Error(`token exchange failed: ${res.status}`);
					const access = await res.text();
					return { type: "oauth", access, refresh: `refresh-${access}`, expires: Date.now() + 3_600_000 };
				},
				async refresh(credential) {
					return credential;
				},
				async toAuth(credential) {
					return { apiKey: credential.access };
				},
			},
		},
	});
}

/** The authorization server of the loopback flow: a code is exchanged for `access-<code>`. */
export function startLoopbackAuthServer() {
	const server = Bun.serve({
		hostname: "127.0.0.1",
		port: 0,
		async fetch(req) {
			const url = new URL(req.url);
			if (url.pathname === "/token" && req.method === "POST") {
				const code = await req.text();
				return code === "good-code" ? new Response(`access-${code}`) : new Response("bad code", { status: 400 });
			}
			return new Response("sign in here");
		},
	});
	return { origin: `http://127.0.0.1:${server.port}`, stop: () => server.stop(true) };
}
