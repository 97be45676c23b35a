import { join } from "node:path";
import { type } from "arktype";
import { ThinkingLevel } from "../protocol/common.ts";
import { readPrivateFile, writePrivateFile } from "./store/data-dir.ts";

export const SERVER_SETTINGS_FILE = "settings.json";

const Settings = type({
	"defaultModel?": { provider: "string", id: "string" },
	"defaultThinkingLevel?": ThinkingLevel,
	/** pi's scoped models (Ctrl+P cycles them): `provider/id`, ids or globs, each with an optional `:level`. */
	"enabledModels?": "string[] <= 200",
});
export type Settings = typeof Settings.infer;

/** The server's own defaults (`<data>/settings.json`): what new sessions start with. */
export class ServerSettings {
	readonly path: string;
	#value: Settings;
	/** Set when the file exists but could not be used; the defaults apply and the file is left alone. */
	readonly problem: string | null;

	constructor(dataDir: string) {
		this.path = join(dataDir, SERVER_SETTINGS_FILE);
		const text = readPrivateFile(this.path);
		let value: Settings = {};
		let problem: string | null = null;
		if (text !== undefined) {
			try {
				const parsed = Settings(JSON.parse(text));
				if (parsed instanceof type.errors) problem = `${SERVER_SETTINGS_FILE}: ${parsed.summary}`;
				else value = parsed;
			} catch (error) {
				problem = `${SERVER_SETTINGS_FILE}: ${(error as Error).message}`;
			}
		}
		this.#value = value;
		this.problem = problem;
	}

	get value(): Settings {
		return this.#value;
	}

	update(patch: Settings): Settings {
		this.#value = { ...this.#value, ...patch };
		writePrivateFile(this.path, `${JSON.stringify(this.#value, null, "\t")}\n`);
		return this.#value;
	}
}
