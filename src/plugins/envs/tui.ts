/**
 * Environments in the TUI, owners only: `/envs` lists this device and envs.json's machines
 * with the open session's marked; Enter moves the session there through the directory prompt, Ctrl+T tests a
 * connection, Ctrl+K reviews and accepts a host key the test found unverified or changed (its fingerprints
 * shown), Ctrl+F forgets one. Other plugins reach the machines' names and folders through `envLocations`
 * (the /cd and /new completion) and move the session through `sessionPlaces` (the sessions plugin's).
 */
import { matchesKey } from "@earendil-works/pi-tui";
import type { GuestContext, GuestPlugin } from "../../guest/plugin.ts";
import { errorText } from "../../protocol/errors.ts";
import type { ObjectRef } from "../../protocol/object-client.ts";
import { isOwnerRole } from "../../protocol/roles.ts";
import { ListPanel } from "../../ui/list-panel.ts";
import { type EnvView, envsContract, type ListResult } from "./contract.ts";

/** The machines' names and folders, for other plugins (owners only; empty for guests). */
export interface EnvLocations {
	/** The configured environments' names (not `local`), once the server said them. */
	names(): Promise<readonly string[]>;
	/** The folders of `path` there (`~` is that machine's home), with the canonical path. */
	list(env: string, path: string): Promise<ListResult>;
}

declare module "../../guest/services.ts" {
	interface GuestServices {
		envLocations: EnvLocations;
	}
}

/** The Envs object is held while in use and released this long after the last request. */
const IDLE_RELEASE_MS = 30_000;

/** The owner's handle on Envs, opened on first use and closed when idle (never for guests). */
class EnvsHandle {
	readonly #ctx: GuestContext;
	#ref: ObjectRef<typeof envsContract> | undefined;
	#timer: ReturnType<typeof setTimeout> | undefined;
	#pinned = 0;

	constructor(ctx: GuestContext) {
		this.#ctx = ctx;
	}

	get(): ObjectRef<typeof envsContract> | undefined {
		if (!isOwnerRole(this.#ctx.session.role)) return undefined;
		this.#ref ??= this.#ctx.objects.open(envsContract, {});
		this.#touch();
		return this.#ref;
	}

	/** Held open (the /envs screen) until the returned function is called. */
	pin(): () => void {
		this.#pinned++;
		return () => {
			this.#pinned--;
			this.#touch();
		};
	}

	#touch(): void {
		clearTimeout(this.#timer);
		this.#timer = setTimeout(() => {
			if (this.#pinned > 0) return;
			this.#ref?.close();
			this.#ref = undefined;
		}, IDLE_RELEASE_MS);
	}

	close(): void {
		clearTimeout(this.#timer);
		this.#ref?.close();
		this.#ref = undefined;
	}
}

export const envsPlugin: GuestPlugin = {
	name: "envs",
	register(ctx) {
		const handle = new EnvsHandle(ctx);
		const locations: EnvLocations = {
			names: async () => {
				const ref = handle.get();
				if (!ref) return [];
				await ref.ready;
				return ref.state?.environments.map((e) => e.name).filter((n) => n !== "local") ?? [];
			},
			list: async (env, path) => {
				const ref = handle.get();
				if (!ref) throw new Error("Only the owner can choose an environment.");
				return ref.call("listDirectory", { env, path });
			},
		};
		const removals = [
			ctx.services.provide("envLocations", locations),
			ctx.commands.register({
				id: "p2.envs",
				title: "Environments: where the session's tools run (this device or SSH machines)",
				category: "p2",
				requires: { role: "owner", to: "choose environments" },
				slash: { name: "envs" },
				run: () => openEnvs(ctx, handle, locations),
			}),
		];
		return () => {
			for (const remove of removals.reverse()) remove();
			handle.close();
		};
	},
};

function label(name: string): string {
	return name === "local" ? "This device" : name;
}

function testLine(env: EnvView): string | undefined {
	const test = env.test;
	if (!test) return undefined;
	if (!test.hostKey) return test.message;
	const offered = test.hostKey.offered.map((k) => `${k.type} ${k.fingerprint}`).join(", ");
	const known = test.hostKey.known.map((k) => `${k.type} ${k.fingerprint}`).join(", ");
	const what = test.hostKey.status === "changed" ? "The host key CHANGED." : "The host key is not verified yet.";
	return `${what} Presented: ${offered || "none (the scan found no key)"}${known ? ` · trusted until now: ${known}` : ""} · ctrl+k to review`;
}

/** Opens /cd's directory prompt on `env`: prefilled with the session's directory if it exists there, else home. */
async function promptMove(ctx: GuestContext, locations: EnvLocations, env: string): Promise<void> {
	const places = ctx.services.get("sessionPlaces");
	if (!places) return ctx.ui.notice("Moving sessions needs the sessions plugin.", "warning");
	const here = places.where();
	let path = "~";
	let error: string | null = null;
	try {
		path = (await locations.list(env, here?.path ?? "~")).path;
	} catch {
		try {
			path = (await locations.list(env, "~")).path;
		} catch (failure) {
			error = errorText(failure);
		}
	}
	places.prompt({ env, path }, error);
}

function openEnvs(ctx: GuestContext, handle: EnvsHandle, locations: EnvLocations): void {
	const { ui } = ctx;
	const ref = handle.get();
	if (!ref) return ui.notice("Only the server's owner can choose environments.");
	const unpin = handle.pin();
	const fail = (error: unknown) => ui.fail(error);
	const here = () => ctx.services.get("sessionPlaces")?.where()?.env;
	let placed = false;
	/** The screen opens on the session's environment, once the list is here. */
	const place = () => {
		if (placed || !ref.state) return;
		placed = true;
		const mine = here() ?? "local";
		panel.select((env) => env.name === mine);
	};
	const off = ref.onChange(() => {
		place();
		if (ui.selector?.id === "envs") ui.requestRender();
	});
	const test = (env: EnvView) =>
		ref
			.call("test", { name: env.name })
			.then((result) => ui.notice(`${label(env.name)}: ${result.message}`, result.ok ? "success" : "warning"), fail);
	const review = (env: EnvView, ask: (question: string, yes: () => void) => void) => {
		const key = env.test?.hostKey;
		if (!key) {
			ui.notice(`Test ${label(env.name)} first (ctrl+t): a key to review shows after a test that found one.`);
			return;
		}
		if (key.offered.length === 0) return ui.notice("The scan found no host key to accept.", "warning");
		const fingerprints = key.offered.map((k) => k.fingerprint);
		const changed = key.status === "changed" ? "It CHANGED since it was trusted. " : "";
		ask(`${changed}Trust ${env.name}'s host key ${fingerprints.join(", ")}?`, () => {
			ref.call("acceptKey", { name: env.name, fingerprints }).then(() => {
				ui.notice(`✓ ${env.name}'s host key is trusted.`, "success");
				void test(env);
			}, fail);
		});
	};
	const panel = new ListPanel<EnvView>(ui.theme, {
		title: "Environments · where the session's tools run",
		empty: "No environment.",
		items: () => ref.state?.environments,
		row: (env) => {
			const mine = env.name === here();
			const test = env.test
				? env.test.ok
					? "✓ connected"
					: env.test.hostKey
						? "host key to review"
						: "✗ not connected"
				: "";
			const detail = [testLine(env), env.name === "local" ? ref.state?.problem : undefined].filter(Boolean).join("\n");
			return {
				left: `${mine ? "● " : "  "}${label(env.name)}${mine ? " · this session" : ""}`,
				right: [env.address === "this device" ? "" : env.address, test].filter(Boolean).join(" · "),
				...(detail ? { detail } : {}),
				...(env.test && !env.test.ok ? { tone: "warning" as const } : {}),
			};
		},
		hint: (env) =>
			env && env.name !== "local"
				? "enter move session here · ctrl+t test · ctrl+k review key · ctrl+f forget key · esc close"
				: "enter move session here · esc close",
		onKey: (data, env, ask) => {
			if (!env) return false;
			if (matchesKey(data, "enter") || data === "\r") {
				unpin();
				off();
				ui.closeSelector();
				void promptMove(ctx, locations, env.name).catch(fail);
				return true;
			}
			if (env.name === "local") return false;
			if (matchesKey(data, "ctrl+t")) {
				ui.notice(`Testing ${env.name}…`);
				void test(env);
				return true;
			}
			if (matchesKey(data, "ctrl+k")) {
				review(env, ask);
				return true;
			}
			if (matchesKey(data, "ctrl+f")) {
				ask(`Forget ${env.name}'s host key? Connecting stops until a key is accepted again.`, () => {
					ref.call("forgetKey", { name: env.name }).then(() => ui.notice(`${env.name}'s host key is forgotten.`), fail);
				});
				return true;
			}
			return false;
		},
		close: () => {
			unpin();
			off();
			ui.closeSelector();
		},
	});
	place();
	ui.showSelector("envs", panel);
	// Warm-up, as the web's picker does: each machine not tested yet is connected to now, quietly; the list
	// shows how it went (and a key to review).
	void ref.ready.then(() => {
		for (const env of ref.state?.environments ?? []) {
			if (env.name !== "local" && !env.test) ref.call("test", { name: env.name }).catch(() => {});
		}
	});
}
