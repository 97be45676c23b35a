/**
 * `/providers`: pi-ai's providers and models.json's, each with its models and how it is
 * signed in (a stored key or OAuth sign-in with its expiry, a key from the environment or models.json), and
 * whether it refused its credentials lately (the log's provider notices). Never a credential's value.
 */
import { join } from "node:path";
import type { Provider } from "@earendil-works/pi-ai";
import { builtinProviders } from "@earendil-works/pi-ai/providers/all";
import {
	AUTH_FILE,
	FileCredentialStore,
	LiveState,
	type LogEntry,
	type ServerContext,
	type ServerPlugin,
} from "../../server/plugin.ts";
import { type ProviderRow, type ProvidersState, providersContract } from "./contract.ts";

const AUTH_PREFIX = "provider.auth:";

async function rows(ctx: ServerContext, failing: ReadonlyMap<string, string>): Promise<ProviderRow[]> {
	const registry = ctx.models.registry;
	const builtin = new Set(builtinProviders().map((p) => p.id));
	// Read fresh, for expiry only: the store's file is the login plugin's to write.
	const stored = new FileCredentialStore(join(ctx.dataDir, AUTH_FILE));
	const out: ProviderRow[] = [];
	for (const provider of registry.getProviders() as readonly Provider[]) {
		const check = await registry.checkAuth(provider.id).catch(() => undefined);
		const credential = await stored.read(provider.id).catch(() => undefined);
		const expires = credential?.type === "oauth" && typeof credential.expires === "number" ? credential.expires : null;
		let auth: ProviderRow["auth"] = null;
		if (credential) auth = credential.type;
		else if (check) auth = builtin.has(provider.id) ? "env" : "config";
		out.push({
			id: provider.id.slice(0, 100),
			name: provider.name.slice(0, 200),
			custom: !builtin.has(provider.id),
			models: registry.getModels(provider.id).length,
			auth,
			source: credential ? null : (check?.source?.slice(0, 200) ?? null),
			expires,
			failing: failing.get(provider.id)?.slice(0, 500) ?? null,
		});
	}
	// Signed in first, then by name, as a list to act on.
	return out
		.sort((a, b) => Number(b.auth !== null) - Number(a.auth !== null) || a.name.localeCompare(b.name))
		.slice(0, 500);
}

export const providersPlugin: ServerPlugin = {
	name: "providers",
	register(ctx) {
		const failing = new Map<string, string>();
		const live = new LiveState<ProvidersState>({ providers: [] });
		let holders = 0;
		const refresh = async () => {
			if (holders === 0) return;
			live.update([{ op: "set", path: ["providers"], value: await rows(ctx, failing) }]);
		};
		const hear = (entry: LogEntry) => {
			const key = entry.notice?.key ?? entry.resolves;
			if (!key?.startsWith(AUTH_PREFIX)) return;
			const id = key.slice(AUTH_PREFIX.length);
			if (entry.resolves !== undefined) failing.delete(id);
			else failing.set(id, entry.text);
			void refresh();
		};
		for (const entry of ctx.log.recent()) hear(entry);
		ctx.log.subscribe(hear);
		ctx.bus.on("models.changed", () => void refresh());
		ctx.host.serve(providersContract, {
			async open() {
				holders++;
				await refresh();
				return {
					state: live,
					methods: {
						async refresh() {
							await ctx.models.reload();
							ctx.bus.emit({ type: "models.changed" });
							return null;
						},
					},
					release: () => {
						holders--;
					},
				};
			},
		});
	},
};
