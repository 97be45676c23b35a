/** The launcher's command line: pi's flags where they apply to a server-backed client, and p2's own. */
import { type ParseArgsConfig, parseArgs } from "node:util";
import { isTuiMode, TUI_MODES, type TuiMode } from "../protocol/preferences.ts";
import { THINKING_LEVELS, type ThinkingLevel } from "../protocol/thinking-levels.ts";

export interface LaunchArgs {
	url?: string;
	ownerLink?: string;
	join?: string;
	verbose: boolean;
	theme?: string;
	noThemes: boolean;
	/** `--tui-mode`: pi's renderer for this run (it wins over the tuiMode setting). */
	tuiMode?: TuiMode;
	continue: boolean;
	resume: boolean;
	session?: string;
	/** `--fork <id>`: open a new fork of that session (a unique prefix will do), here. */
	fork?: string;
	model?: string;
	provider?: string;
	thinking?: ThinkingLevel;
	name?: string;
	/** `--models a,b`: pi's model cycling scope, for this run (owner). */
	models?: string[];
	/** Initial message words: they become the first draft, not a sent message. */
	draft: string;
	/** `@file` words, as typed: the launcher offers each to attach (and asks) once a session is open. */
	files: string[];
	help: boolean;
	version: boolean;
}

/** How many `@file` arguments and `--models` patterns one command line may carry. */
const MAX_FILES = 20;
const MAX_PATTERNS = 200;

export class ArgsError extends Error {
	override name = "ArgsError";
}

/** pi flags that have no meaning for a client whose sessions, tools and credentials live on a server. */
const UNSUPPORTED: Record<string, string> = {
	"--session-dir": "sessions live on the p2 server",
	"--no-session": "sessions live on the p2 server",
	"--tools": "the tool loadout is the server's configuration",
	"-t": "the tool loadout is the server's configuration",
	"--no-tools": "the tool loadout is the server's configuration",
	"--exclude-tools": "the tool loadout is the server's configuration",
	"--no-builtin-tools": "the tool loadout is the server's configuration",
	"--system-prompt": "the system prompt is the server's configuration",
	"--append-system-prompt": "the system prompt is the server's configuration",
	"--extension": "p2 plugins are chosen by the server",
	"-e": "p2 plugins are chosen by the server",
	"--no-extensions": "p2 plugins are chosen by the server",
	"--skill": "skills are server resources",
	"--no-skills": "skills are server resources",
	"--prompt-template": "prompt templates are server resources",
	"--no-prompt-templates": "prompt templates are server resources",
	"--no-context-files": "context files are read by the server",
	"--no-mcp": "tools are the server's configuration",
	"--approve": "project trust does not apply to a server-backed client",
	"-a": "project trust does not apply to a server-backed client",
	"--no-approve": "project trust does not apply to a server-backed client",
	"--offline": "p2 is a network client",
	"--api-key": "credentials live on the server (use /login)",
	"--print": "p2 has no print mode",
	"-p": "p2 has no print mode",
	"--mode": "p2 has no json or rpc mode",
	"--export": "export is not available in p2",
	"--list-models": "use /model inside p2",
};

function isUrl(text: string): boolean {
	try {
		const url = new URL(text);
		return url.protocol === "http:" || url.protocol === "https:";
	} catch {
		return false;
	}
}

/** The options, as `node:util` parseArgs reads them; aliases name the option they stand for. */
const OPTIONS = {
	help: { type: "boolean", short: "h" },
	version: { type: "boolean", short: "v" },
	verbose: { type: "boolean" },
	"no-themes": { type: "boolean" },
	continue: { type: "boolean", short: "c" },
	resume: { type: "boolean", short: "r" },
	theme: { type: "string" },
	"tui-mode": { type: "string" },
	"use-theme": { type: "string" },
	session: { type: "string" },
	"session-id": { type: "string" },
	fork: { type: "string" },
	model: { type: "string" },
	provider: { type: "string" },
	models: { type: "string" },
	thinking: { type: "string" },
	name: { type: "string", short: "n" },
	"owner-link": { type: "string" },
	join: { type: "string" },
} as const satisfies ParseArgsConfig["options"];
type OptionName = keyof typeof OPTIONS;
const ALIASES: Partial<Record<OptionName, OptionName>> = { "use-theme": "theme", "session-id": "session" };

/** Each option's value as given (the last one wins), checked: a value where one is needed, none where not. */
function readOptions(argv: readonly string[]): { values: Map<OptionName, string | true>; words: string[] } {
	const { tokens } = parseArgs({
		args: [...argv],
		options: OPTIONS,
		allowPositionals: true,
		strict: false,
		tokens: true,
	});
	const values = new Map<OptionName, string | true>();
	const words: string[] = [];
	for (const token of tokens) {
		if (token.kind === "positional") {
			words.push(token.value);
			continue;
		}
		if (token.kind !== "option") continue;
		const flag = token.rawName;
		if (Object.hasOwn(UNSUPPORTED, flag)) throw new ArgsError(`${flag} is not supported by p2: ${UNSUPPORTED[flag]}.`);
		if (!Object.hasOwn(OPTIONS, token.name)) throw new ArgsError(`unknown option ${flag} (see p2 --help)`);
		const name = token.name as OptionName;
		if (OPTIONS[name].type === "boolean") {
			if (token.value !== undefined) throw new ArgsError(`${flag} takes no value`);
			values.set(ALIASES[name] ?? name, true);
			continue;
		}
		const value = token.value;
		// A value that looks like another option is a missing value (write --name=-x to mean it).
		if (value === undefined || (!token.inlineValue && value.startsWith("-") && value !== "-")) {
			throw new ArgsError(`${flag} needs a value`);
		}
		values.set(ALIASES[name] ?? name, value);
	}
	return { values, words };
}

export function parseLaunchArgs(argv: readonly string[]): LaunchArgs {
	const { values, words: given } = readOptions(argv);
	const text = (name: OptionName) => {
		const value = values.get(name);
		return typeof value === "string" ? value : undefined;
	};
	const out: LaunchArgs = {
		verbose: values.has("verbose"),
		noThemes: values.has("no-themes"),
		continue: values.has("continue"),
		resume: values.has("resume"),
		draft: "",
		files: [],
		help: values.has("help"),
		version: values.has("version"),
	};
	const set = <K extends keyof LaunchArgs>(key: K, value: LaunchArgs[K] | undefined) => {
		if (value !== undefined) out[key] = value;
	};
	set("theme", text("theme"));
	const tuiMode = text("tui-mode");
	if (tuiMode !== undefined && !isTuiMode(tuiMode)) {
		throw new ArgsError(`Invalid TUI mode "${tuiMode}". Valid values: ${TUI_MODES.join(", ")}`);
	}
	set("tuiMode", tuiMode);
	set("model", text("model"));
	set("provider", text("provider"));
	set("name", text("name"));
	set("ownerLink", text("owner-link"));
	set("join", text("join"));
	const session = text("session");
	if (session !== undefined && !/^[0-9a-f-]{36}$/.test(session)) {
		throw new ArgsError(`--session: "${session}" is not a session id`);
	}
	set("session", session);
	const fork = text("fork");
	if (fork !== undefined && !/^[0-9a-f-]{1,36}$/.test(fork))
		throw new ArgsError(`--fork: "${fork}" is not a session id`);
	set("fork", fork);
	const level = text("thinking");
	if (level !== undefined && !(THINKING_LEVELS as readonly string[]).includes(level)) {
		throw new ArgsError(`Invalid thinking level "${level}". Valid values: ${THINKING_LEVELS.join(", ")}`);
	}
	set("thinking", level as ThinkingLevel | undefined);
	const models = text("models");
	if (models !== undefined) {
		const patterns = models
			.split(",")
			.map((p) => p.trim())
			.filter(Boolean);
		if (!patterns.length) throw new ArgsError("--models needs at least one pattern");
		if (patterns.length > MAX_PATTERNS || patterns.some((p) => p.length > 256))
			throw new ArgsError(`--models takes at most ${MAX_PATTERNS} patterns of 256 characters`);
		out.models = patterns;
	}
	const words = [...given];
	if (words.length && isUrl(words[0]!)) out.url = words.shift()!.replace(/\/+$/, "");
	// pi's `@file` arguments: the files go with the first message; the other words are its text.
	out.files = words.filter((word) => word.startsWith("@")).map((word) => word.slice(1));
	if (out.files.some((path) => !path.trim())) throw new ArgsError("@ needs a file name (@notes.md)");
	if (out.files.length > MAX_FILES) throw new ArgsError(`at most ${MAX_FILES} @files at once`);
	if (out.files.some((path) => path.length > 4096)) throw new ArgsError("an @file name is too long");
	if (out.ownerLink !== undefined && out.join !== undefined)
		throw new ArgsError("--owner-link and --join exclude each other");
	if (out.continue && out.resume) throw new ArgsError("--continue and --resume exclude each other");
	if (out.session !== undefined && (out.continue || out.resume)) {
		throw new ArgsError("--session excludes --continue and --resume");
	}
	if (out.fork !== undefined && (out.session !== undefined || out.continue || out.resume)) {
		throw new ArgsError("--fork excludes --session, --continue and --resume");
	}
	out.draft = words.filter((word) => !word.startsWith("@")).join(" ");
	return out;
}

export const LAUNCH_HELP = `Usage: p2 [url] [options] [@files...] [message...]

Opens this device's p2 sessions (starting its server when none runs), or a remote server's.

  url                        a p2 server, e.g. https://p2.example.com
  --owner-link <link>        sign in to a server as its owner
  --join <link>              join a shared session
  -c, --continue             continue the last session on this server
  -r, --resume               pick a session to resume
  --session <id>             open a session (alias --session-id)
  --fork <id>                open a new fork of a session, in this directory (owner)
  --name, -n <title>         rename the session that opens (owner)
  --model <provider/id>      use this model for the session that opens (owner)
  --provider <name>          the provider for --model
  --thinking <level>         off, minimal, low, medium, high, xhigh, max
  --models <patterns>        the models Ctrl+P cycles through this run, comma-separated
                             (provider/id, an id, globs, :level), as /scoped-models (owner)
  --theme <name>             use this theme for this run
  --no-themes                skip custom theme files
  --tui-mode <mode>          TUI mode: fullscreen (default) or regular (the terminal's scrollback)
  --verbose                  show the header and loaded resources expanded, even with quietStartup
  @file...                   attach these files from this computer to the first message (p2 asks first)
  message...                 becomes the first draft in the editor (not sent)

  p2 serve --help            run a p2 server on its own
  p2 --version`;
