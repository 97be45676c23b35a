/**
 * `/providers`: pi-ai's providers and models.json's with their state (signed in, a key from the environment or
 * models.json, an OAuth sign-in's expiry, failing), next to /login and /logout. Owners only.
 */
import { matchesKey } from "@earendil-works/pi-tui";
import type { GuestPlugin } from "../../guest/plugin.ts";
import { ListPanel } from "../../ui/list-panel.ts";
import { type ProviderRow, providersContract } from "./contract.ts";

function until(ms: number): string {
	if (ms <= 0) return "expired (refreshed on use)";
	const minutes = Math.floor(ms / 60_000);
	if (minutes < 60) return `expires in ${minutes}m`;
	const hours = Math.floor(minutes / 60);
	return hours < 48 ? `expires in ${hours}h` : `expires in ${Math.floor(hours / 24)}d`;
}

export function providerState(p: ProviderRow, now: number): string {
	if (p.failing) return "failing: refused its credentials";
	switch (p.auth) {
		case "api_key":
			return "signed in (API key)";
		case "oauth":
			return `signed in (account${p.expires === null ? "" : `, ${until(p.expires - now)}`})`;
		case "env":
			return `key from the environment${p.source ? ` (${p.source})` : ""}`;
		case "config":
			return `key from models.json${p.source ? ` (${p.source})` : ""}`;
		default:
			return "not configured";
	}
}

export const providersPlugin: GuestPlugin = {
	name: "providers",
	register(ctx) {
		return ctx.commands.register({
			id: "p2.providers",
			title: "Model providers and how the server is signed in to each",
			category: "p2",
			requires: { role: "owner", to: "see the server's providers" },
			slash: { name: "providers" },
			run: () => {
				const { ui } = ctx;
				const ref = ctx.objects.open(providersContract, {});
				ref.onChange(() => {
					if (ui.selector?.id === "providers") ui.requestRender();
				});
				ui.showSelector(
					"providers",
					new ListPanel<ProviderRow>(ui.theme, {
						title: "Providers",
						empty: "No providers.",
						items: () => ref.state?.providers,
						row: (p) => ({
							left: `${p.name}${p.custom ? " · models.json" : ""} · ${providerState(p, Date.now())}`,
							right: `${p.models} ${p.models === 1 ? "model" : "models"}`,
							...(p.failing ? { detail: p.failing, tone: "error" as const } : {}),
						}),
						matches: (p, typed) => `${p.id} ${p.name}`.toLowerCase().includes(typed.toLowerCase()),
						hint: () => "type to filter · /login sign in · /logout sign out · ctrl+r read again · ↑↓ move · esc close",
						onKey: (data) => {
							if (!matchesKey(data, "ctrl+r")) return false;
							ref.call("refresh", {}).catch((error: unknown) => ui.fail(error));
							return true;
						},
						close: () => {
							ui.closeSelector();
							ref.close();
						},
					}),
				);
			},
		});
	},
};
