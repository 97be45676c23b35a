/**
 * pi's /login [provider] and /logout [provider], on the server: the method and provider selectors, then the
 * login dialog following the server's flow. Owners only; a guest is told who signs the server in. And p2's
 * /signout, which ends this device's owner sign-in on a remote server (the launcher asks first).
 */

import { failureText } from "../../guest/layout.ts";
import type { GuestContext, GuestPlugin } from "../../guest/plugin.ts";
import type { ObjectRef } from "../../protocol/object-client.ts";
import { isOwnerRole } from "../../protocol/roles.ts";
import { MenuSelector } from "../../ui/menu-selector.ts";
import { type AuthMethod, type LoginFlow, type LoginProvider, loginContract } from "./contract.ts";
import { LoginDialog } from "./tui-dialog.ts";
import { ProviderSelector } from "./tui-provider-selector.ts";

const HINT = [
	["↑↓", "navigate"],
	["enter", "select"],
	["escape/ctrl+c", "cancel"],
] as const;

/** pi's words when a sign-in is done: what was saved, the model it chose when there was none, and where. */
export function doneNotices(
	flow: LoginFlow,
	providerName: string,
	method: AuthMethod,
): [text: string, tone: "status" | "error"][] {
	const action = method === "oauth" ? `Logged in to ${providerName}` : `Saved API key for ${providerName}`;
	const savedTo = flow.savedTo ? `. Credentials saved to ${flow.savedTo}` : "";
	if (flow.selected) return [[`${action}. Selected ${flow.selected}${savedTo}`, "status"]];
	const done: [string, "status" | "error"][] = [[`${action}${savedTo}`, "status"]];
	if (flow.selected === null) {
		done.push([
			`Error: ${action}, but no models are available for that provider. Use /model to select a model.`,
			"error",
		]);
	}
	return done;
}

/** pi's status mark beside a provider: configured, and how. */
function status(p: LoginProvider): string {
	if (p.signedIn === "oauth") return "✓ account signed in";
	if (p.signedIn === "api_key") return p.source && p.source !== "stored credential" ? `✓ ${p.source}` : "✓ configured";
	return "• not configured";
}

export const loginPlugin: GuestPlugin = {
	name: "login",
	register(ctx) {
		/** The owner's login object (opened on first use, kept). */
		let login: ObjectRef<typeof loginContract> | undefined;
		const removals = [
			registerSignOut(ctx),
			...registerLoginCommands(ctx, () => {
				login ??= ctx.objects.open(loginContract, {});
				return login;
			}),
		];
		return () => {
			for (const remove of removals) remove();
			login?.close();
		};
	},
};

function registerSignOut(ctx: GuestContext): () => void {
	return ctx.commands.register({
		id: "p2.signOut",
		title: "Sign this device out of the server (owner)",
		category: "p2",
		slash: {
			name: "signout",
			argumentHint: "[all]",
			complete: (prefix) =>
				"all".startsWith(prefix) ? [{ value: "all", label: "all", description: "every owner login" }] : null,
		},
		run: async (args) => {
			if (ctx.session.role !== "owner") return ctx.ui.notice("Only an owner signed in with a link can sign out here.");
			const answer = await ctx.launcher.request("signOut", { all: args.trim() === "all" });
			if (!answer.ok && answer.error !== "declined")
				ctx.ui.notice(`Not signed out: ${answer.error ?? "refused"}`, "warning");
		},
	});
}

function registerLoginCommands(guest: GuestContext, loginRef: () => ObjectRef<typeof loginContract>): (() => void)[] {
	const { ui, commands } = guest;
	/** What these commands use of the guest. */
	const ctx = {
		theme: ui.theme,
		role: () => guest.session.role,
		login: loginRef,
		keys: (id: string) => ui.keys(id),
		showSelector: ui.showSelector.bind(ui),
		closeSelector: () => ui.closeSelector(),
		requestRender: () => ui.requestRender(),
		notice: ui.notice.bind(ui),
		request: guest.launcher.request.bind(guest.launcher),
	};
	const providers = async () => {
		const login = ctx.login();
		await login.ready;
		return login.state?.providers ?? [];
	};
	const run = async (work: () => Promise<unknown>) => {
		try {
			await work();
		} catch (error) {
			ctx.notice(failureText(error), "error");
		}
	};

	/** Runs one sign-in: the dialog shows the server's flow until it ends. */
	const signIn = async (provider: LoginProvider, method: AuthMethod) => {
		const login = ctx.login();
		const { flow } = await login.call("start", { provider: provider.id, method });
		const dialog = new LoginDialog({
			theme: ctx.theme,
			providerName: provider.name,
			keys: ctx.keys,
			answer: (prompt, value) => {
				void run(() => login.call("answer", { flow, prompt: prompt.id, value }));
			},
			cancel: () => {
				void run(() => login.call("cancel", { flow }));
			},
			// pi opens the sign-in page at once; here the launcher asks first, and nothing opens without a yes.
			openUrl: (url) => {
				void ctx.request("openUrl", { url }).then((answer) => {
					if (!answer.ok && answer.error !== "declined")
						ctx.notice(`Not opened: ${answer.error ?? "refused"}`, "warning");
				});
			},
			copy: (url) => {
				void ctx.request("copy", { text: url, label: "the sign-in address" }).then((answer) => {
					if (answer.ok) ctx.notice("Sign-in address copied");
				});
			},
		});
		const stop = login.onChange((state) => {
			const current = state?.flow;
			if (!current || current.id !== flow) return;
			dialog.update(current);
			ctx.requestRender();
			if (current.status === "running") return;
			stop();
			ctx.closeSelector();
			if (current.status === "done") {
				for (const [text, tone] of doneNotices(current, provider.name, method)) ctx.notice(text, tone);
			} else if (current.status === "cancelled") ctx.notice("Login cancelled");
			else ctx.notice(`Error: Login failed: ${current.error ?? "unknown error"}`, "error");
		});
		const now = login.state?.flow;
		if (now?.id === flow) dialog.update(now);
		ctx.showSelector("login", dialog);
	};

	const chooseProvider = (method: AuthMethod, list: LoginProvider[]) => {
		const offered = list.filter((p) => (method === "oauth" ? p.oauth : p.apiKey));
		if (!offered.length) {
			return ctx.notice(method === "oauth" ? "No account providers available." : "No API key providers available.");
		}
		ctx.showSelector(
			"login",
			new ProviderSelector({
				theme: ctx.theme,
				title: "Select provider to configure:",
				choices: offered.map((provider) => ({ provider, method })),
				empty: "No providers available",
				onCancel: () => ctx.closeSelector(),
				onSelect: ({ provider }) => {
					ctx.closeSelector();
					void run(() => signIn(provider, method));
				},
			}),
		);
	};

	const chooseMethod = (list: LoginProvider[], only?: LoginProvider) => {
		ctx.showSelector(
			"login",
			new MenuSelector(ctx.theme, {
				title: only ? `Select authentication method for ${only.name}:` : "Select authentication method:",
				choices: [
					{ value: "oauth", label: only?.oauth?.label ?? "Sign in with an account" },
					{ value: "api_key", label: "Sign in with an API key" },
				],
				hint: HINT,
				onCancel: () => ctx.closeSelector(),
				onSelect: (value) => {
					ctx.closeSelector();
					const method = value === "oauth" ? "oauth" : "api_key";
					if (only) void run(() => signIn(only, method));
					else chooseProvider(method, list);
				},
			}),
		);
	};

	const complete = async (prefix: string) => {
		if (!isOwnerRole(ctx.role())) return null;
		const lower = prefix.toLowerCase();
		return (await providers())
			.filter((p) => p.id.startsWith(lower) || p.name.toLowerCase().includes(lower))
			.slice(0, 30)
			.map((p) => ({ value: p.id, label: p.id, description: `${p.name} ${status(p)}` }));
	};

	const login = commands.register({
		id: "p2.login",
		title: "Configure provider authentication",
		category: "Models",
		slash: { name: "login", argumentHint: "<provider>", complete },
		run: (args) =>
			run(async () => {
				if (!isOwnerRole(ctx.role())) return ctx.notice("The server's owner signs it in to model providers.");
				const list = await providers();
				if (!args) return chooseMethod(list);
				const provider = list.find((p) => p.id === args.toLowerCase());
				if (!provider) return ctx.notice(`Error: Unknown provider "${args}"`, "error");
				if (provider.oauth && provider.apiKey) return chooseMethod(list, provider);
				await signIn(provider, provider.oauth ? "oauth" : "api_key");
			}),
	});

	const logout = commands.register({
		id: "p2.logout",
		title: "Remove provider authentication",
		category: "Models",
		slash: { name: "logout", argumentHint: "<provider>", complete },
		run: (args) =>
			run(async () => {
				if (!isOwnerRole(ctx.role())) return ctx.notice("The server's owner signs it in to model providers.");
				const list = (await providers()).filter(
					(p) => p.signedIn && (!p.source || p.source === "stored credential" || p.signedIn === "oauth"),
				);
				const out = async (provider: LoginProvider) => {
					await ctx.login().call("logout", { provider: provider.id });
					ctx.notice(`Logged out of ${provider.name}`);
				};
				if (args) {
					const provider = list.find((p) => p.id === args.toLowerCase());
					if (!provider) return ctx.notice(`No sign-in for "${args}" is stored on this server.`);
					return out(provider);
				}
				if (!list.length) return ctx.notice("No sign-ins are stored on this server.");
				ctx.showSelector(
					"login",
					new ProviderSelector({
						theme: ctx.theme,
						title: "Select provider to logout:",
						choices: list.map((provider) => ({ provider, method: provider.signedIn ?? "api_key" })),
						empty: "No providers logged in. Use /login first.",
						onCancel: () => ctx.closeSelector(),
						onSelect: ({ provider }) => {
							ctx.closeSelector();
							void run(() => out(provider));
						},
					}),
				);
			}),
	});
	return [login, logout];
}
