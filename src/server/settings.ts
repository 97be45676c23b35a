import { join } from "node:path";
import { type } from "../protocol/ark.ts";
import { ProtocolError } from "../protocol/codes.ts";
import { ThinkingLevel } from "../protocol/common.ts";
import { fileLabel, readJsonFile, shapeProblems } from "./json-file.ts";
import { writePrivateFile } from "./store/data-dir.ts";

export const SERVER_SETTINGS_FILE = "settings.json";

const Settings = type({
	"defaultModel?": { provider: "string", id: "string" },
	"defaultThinkingLevel?": ThinkingLevel,
	/** pi's scoped models (Ctrl+P cycles them): `provider/id`, ids or globs, each with an optional `:level`. */
	"enabledModels?": "string[] <= 200",
	/** pi's compaction settings: how much of the latest conversation a compaction keeps word for word. */
	"compaction?": { "keepRecentTokens?": "number.integer >= 0", "+": "ignore" },
	/** How deep subagents may start subagents (the main conversation's are at depth 1). */
	"subagents?": { "maxDepth?": "1 <= number.integer <= 4", "+": "ignore" },
	/** pi's automatic retry of transient provider errors. */
	"retry?": {
		"enabled?": "boolean",
		"maxRetries?": "0 <= number.integer <= 100",
		"baseDelayMs?": "number.integer >= 0",
		"maxAgentDelayMs?": "number.integer >= 0",
		"+": "ignore",
	},
});
export type Settings = typeof Settings.infer;

/** The server's own defaults (`<data>/settings.json`): what new sessions start with. */
export class ServerSettings {
	readonly path: string;
	#value: Settings = {};
	#problem: string | null = null;

	constructor(dataDir: string) {
		this.path = join(dataDir, SERVER_SETTINGS_FILE);
		this.reload();
	}

	/** Reads the file again (it changed on disk): a server that runs on keeps to what the person wrote. */
	reload(): void {
		const label = fileLabel(this.path);
		const read = readJsonFile(this.path, { label });
		let value: Settings = {};
		let problem: string | null = null;
		if ("problem" in read) problem = read.problem;
		else if ("value" in read) {
			const parsed = Settings(read.value);
			if (parsed instanceof type.errors) problem = `${label}: ${shapeProblems(parsed).join("; ")}`;
			else value = parsed;
		}
		this.#value = value;
		this.#problem = problem;
	}

	get value(): Settings {
		return this.#value;
	}

	/** Set when the file exists but could not be used; the defaults apply and the file is left alone. */
	get problem(): string | null {
		return this.#problem;
	}

	/** A file that could not be used is never overwritten: what the person wrote in it stays theirs to fix. */
	update(patch: Settings): Settings {
		if (this.problem) throw new ProtocolError("conflict", `${this.problem}. Fix the file, then try again.`);
		this.#value = { ...this.#value, ...patch };
		writePrivateFile(this.path, `${JSON.stringify(this.#value, null, "\t")}\n`);
		return this.#value;
	}
}
