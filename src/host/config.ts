import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { type } from "arktype";
import { forbiddenKeyIn } from "../protocol/own-keys.ts";
import { writePrivateJson } from "./private-file.ts";

const OriginConfig = type({
	"cookie?": "string",
	"guest?": { cookie: "string", session: "string" },
	"lastSession?": "string",
});
const ConfigFile = type({ version: "1", origins: type({ "[string]": OriginConfig }) });
export type OriginConfig = typeof OriginConfig.infer;
type ConfigFile = typeof ConfigFile.infer;

export function configDir(env: Record<string, string | undefined>): string {
	return env.P2_TUI_CONFIG_DIR ?? join(env.HOME ?? homedir(), ".pi", "p2-tui");
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
			const parsed = ConfigFile(raw);
			if (parsed instanceof type.errors) return { data: empty, problem: `config.json ignored: ${parsed.summary}` };
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
