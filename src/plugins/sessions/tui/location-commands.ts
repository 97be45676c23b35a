/**
 * Where the open session runs: `/cd [[env:]path]` moves it (to another environment after the move's
 * note, confirmed with Enter), `/new` takes the same `[env:]path`, Tab completes environment names and then the
 * target machine's folders, and other plugins (/envs) move the session through `sessionPlaces`. Environment
 * names and folders come from the envs plugin's `envLocations`; without it only this device's paths work.
 */
import type { AutocompleteItem } from "@earendil-works/pi-tui";
import type { GuestContext } from "../../../guest/plugin.ts";
import { ENV_PREFIX } from "../../../protocol/env-name.ts";
import { errorText } from "../../../protocol/errors.ts";
import { isOwnerRole } from "../../../protocol/roles.ts";
import { DirectoryPrompt } from "../../../ui/directory-prompt.ts";
import { visibleText } from "../../../ui/text.ts";
import { formatLocation, LOCAL, type Location, parseLocation } from "./location.ts";
import type { Catalog } from "./session-commands.ts";

/** Where the open session is, and moving it (for /envs). */
export interface SessionPlaces {
	where(): Location | undefined;
	/** Relocates the open session; rejects with the server's reason. */
	moveTo(env: string, path: string): Promise<void>;
	/** The directory prompt of /cd on `place` (the move's note when it is another machine), showing `error` first. */
	prompt(place: Location, error?: string | null): void;
}

declare module "../../../guest/services.ts" {
	interface GuestServices {
		sessionPlaces: SessionPlaces;
	}
}

const noteFor = (env: string) =>
	`Tools will run on ${env === LOCAL ? "this device" : env}. The history stays; files are not copied.`;

/** The open session's place, from the catalog. */
export function sessionPlace(ctx: GuestContext, catalog: Catalog): Location | undefined {
	const row = catalog()?.state?.sessions.find((s) => s.id === ctx.session.id);
	return row ? { env: row.env, path: row.cwd } : undefined;
}

/** The configured environments' names (empty without the envs plugin or for guests). */
async function envNames(ctx: GuestContext): Promise<readonly string[]> {
	const locations = ctx.services.get("envLocations");
	if (!locations || !isOwnerRole(ctx.session.role)) return [];
	return locations.names().catch(() => []);
}

/** `[env:]path` read for /cd (relative to the session) or /new (no session base); throws the reason. */
export async function readPlace(ctx: GuestContext, typed: string, session: Location | undefined): Promise<Location> {
	const parsed = parseLocation(typed, { envs: await envNames(ctx), ...(session ? { session } : {}) });
	if ("error" in parsed) throw new Error(parsed.error);
	return parsed;
}

/**
 * Tab for `[env:]path`: environment names while no path is typed, then the folders of the typed directory on
 * that machine (dot folders only after a typed dot).
 */
export async function completePlace(
	ctx: GuestContext,
	prefix: string,
	session: Location | undefined,
): Promise<AutocompleteItem[] | null> {
	const locations = ctx.services.get("envLocations");
	if (!locations || !isOwnerRole(ctx.session.role)) return null;
	const names = await envNames(ctx);
	const items: AutocompleteItem[] = [];
	if (!prefix.includes(":") && !prefix.includes("/") && !prefix.startsWith("~")) {
		for (const name of [...names, LOCAL]) {
			if (name.startsWith(prefix)) items.push({ value: `${name}:`, label: `${name}:`, description: "environment" });
		}
	}
	const colon = ENV_PREFIX.exec(prefix);
	const envPart = colon && (names.includes(colon[1] ?? "") || colon[1] === LOCAL) ? colon[0] : "";
	const pathPart = prefix.slice(envPart.length);
	const slash = pathPart.lastIndexOf("/");
	const typedDir = slash >= 0 ? pathPart.slice(0, slash + 1) : "";
	const base = pathPart.slice(slash + 1);
	const place = parseLocation(`${envPart}${typedDir || (envPart ? "" : ".")}`, {
		envs: names,
		...(session ? { session } : {}),
	});
	if ("error" in place) return items.length ? items : null;
	try {
		const listed = await locations.list(place.env, typedDir === "" && !envPart ? (session?.path ?? "~") : place.path);
		for (const folder of listed.folders) {
			if (!folder.startsWith(base) || (folder.startsWith(".") && !base.startsWith("."))) continue;
			// A machine's folder name with control characters is not offered: it would go into the editor as typed.
			if (visibleText(folder, false) !== folder) continue;
			const value = `${envPart}${typedDir}${folder}/`;
			items.push({ value, label: `${folder}/` });
			if (items.length >= 50) break;
		}
	} catch {
		// An unreachable machine or a missing folder completes nothing.
	}
	return items.length ? items : null;
}

export function registerLocationCommands(ctx: GuestContext, catalog: Catalog): () => void {
	const { ui } = ctx;
	const moveTo = async (env: string, path: string) => {
		const sessions = catalog();
		const id = ctx.session.id;
		if (!sessions || !id) throw new Error("No session is open yet.");
		const row = await sessions.call("relocate", { id, env, cwd: path });
		ui.notice(`✓ Tools now run in ${formatLocation(row.env, row.cwd)}`, "success");
	};
	/**
	 * The directory prompt: the move's note when the place is on another machine (Enter confirms, Esc moves
	 * nothing); with `choose`, Tab goes to the next environment (this device, then each configured one) at that
	 * machine's home.
	 */
	const confirmMove = (place: Location, choose = false, error: string | null = null) => {
		const close = () => ui.closeSelector();
		const here = sessionPlace(ctx, catalog);
		let env = place.env;
		const locations = ctx.services.get("envLocations");
		const prompt = new DirectoryPrompt(
			{
				theme: ui.theme,
				env: () => (env === LOCAL ? "this device" : env),
				note: () => (here && here.env === env ? null : noteFor(env)),
				submit: async (path) => {
					await moveTo(env, path);
					close();
				},
				...(choose && locations
					? {
							nextEnv: async () => {
								const all = [LOCAL, ...(await envNames(ctx))];
								const next = all[(all.indexOf(env) + 1) % all.length] ?? LOCAL;
								env = next;
								if (here && here.env === next) return here.path;
								return (await locations.list(next, "~")).path;
							},
						}
					: {}),
				cancel: close,
				requestRender: () => ui.requestRender(),
			},
			place.path,
		);
		prompt.showError(error);
		ui.showSelector("cd-move", prompt);
	};
	const removals = [
		ctx.services.provide("sessionPlaces", {
			where: () => sessionPlace(ctx, catalog),
			moveTo,
			prompt: (place, error) => confirmMove(place, false, error ?? null),
		}),
		ctx.commands.register({
			id: "p2.session.cd",
			title: "Change the session's directory or machine ([env:]path; the history stays)",
			category: "Sessions",
			when: "chat && owner",
			requires: { role: "owner", to: "move this session" },
			slash: {
				name: "cd",
				argumentHint: "[[env:]path]",
				tabOnly: true,
				complete: (prefix) => completePlace(ctx, prefix, sessionPlace(ctx, catalog)),
			},
			run: async (typed) => {
				const here = sessionPlace(ctx, catalog);
				if (!here) throw new Error("No session is open yet.");
				// Without a place: the prompt on the session's directory, Tab for another environment.
				if (!typed.trim()) return confirmMove(here, true);
				const place = await readPlace(ctx, typed, here);
				// Another machine: its note first, and Enter confirms.
				if (place.env !== here.env) return confirmMove(place);
				await moveTo(place.env, place.path).catch((error: unknown) => {
					throw new Error(errorText(error));
				});
			},
		}),
	];
	return () => {
		for (const remove of removals.reverse()) remove();
	};
}
