import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { forbiddenKeyIn, isRecord, own } from "../protocol/own-keys.ts";
import { writePrivateJson } from "./private-file.ts";

export interface OriginConfig {
	readonly cookie?: string;
	readonly guest?: { readonly cookie: string; readonly session: string };
	readonly lastSession?: string;
}
interface ConfigFile {
	readonly version: 1;
	readonly origins: Readonly<Record<string, OriginConfig>>;
}

/** The file as written by this launcher, or why it is not (read by own keys, into fresh objects). */
function readConfigFile(raw: unknown): ConfigFile | string {
	if (!isRecord(raw) || own(raw, "version") !== 1) return "not a version 1 config";
	const origins = own(raw, "origins");
	if (!isRecord(origins)) return "origins must be an object";
	const out: Record<string, OriginConfig> = Object.create(null);
	for (const origin of Object.keys(origins)) {
		const entry = origins[origin];
		if (!isRecord(entry)) return `origins.${origin.slice(0, 60)} must be an object`;
		const cookie = own(entry, "cookie");
		const lastSession = own(entry, "lastSession");
		const guest = own(entry, "guest");
		if (cookie !== undefined && typeof cookie !== "string") return "a cookie must be a string";
		if (lastSession !== undefined && typeof lastSession !== "string") return "lastSession must be a string";
		let guestEntry: OriginConfig["guest"];
		if (guest !== undefined) {
			const guestCookie = own(guest, "cookie");
			const session = own(guest, "session");
			if (typeof guestCookie !== "string" || typeof session !== "string")
				return "a guest entry needs a cookie and a session";
			guestEntry = { cookie: guestCookie, session };
		}
		out[origin] = {
			...(cookie === undefined ? {} : { cookie }),
			...(guestEntry ? { guest: guestEntry } : {}),
			...(lastSession === undefined ? {} : { lastSession }),
		};
	}
	return { version: 1, origins: out };
}

/**
 * The launcher's own file (0600): sign-in cookies per origin and the last session. It never reaches the
 * worker, a URL, a log or a child process.
 */
export class LauncherConfig {
	#path: string;
	#data: ConfigFile;
	readonly problem: string | undefined;

	constructor(dir: string) {
		this.#path = join(dir, "config.json");
		const loaded = LauncherConfig.#load(this.#path);
		this.#data = loaded.data;
		this.problem = loaded.problem;
	}

	static #load(path: string): { data: ConfigFile; problem?: string } {
		const empty: ConfigFile = { version: 1, origins: {} };
		if (!existsSync(path)) return { data: empty };
		try {
			const raw: unknown = JSON.parse(readFileSync(path, "utf8"));
			const forbidden = forbiddenKeyIn(raw);
			if (forbidden) return { data: empty, problem: `config.json ignored: the key ${forbidden} is not allowed` };
			const parsed = readConfigFile(raw);
			if (typeof parsed === "string") return { data: empty, problem: `config.json ignored: ${parsed}` };
			return { data: parsed };
		} catch {
			return { data: empty, problem: "config.json ignored: not valid JSON" };
		}
	}

	get(origin: string): OriginConfig {
		const origins = this.#data.origins;
		return Object.hasOwn(origins, origin) ? (origins[origin] ?? {}) : {};
	}

	update(origin: string, change: (current: OriginConfig) => OriginConfig): void {
		const next = change({ ...this.get(origin) });
		const origins: Record<string, OriginConfig> = Object.create(null);
		Object.assign(origins, this.#data.origins);
		origins[origin] = next;
		this.#data = { ...this.#data, origins };
		this.#save();
	}

	#save(): void {
		writePrivateJson(this.#path, this.#data);
	}
}
