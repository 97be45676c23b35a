/** The launcher's command line: pi's flags where they apply to a server-backed client, and p2's own. */

export const THINKING_LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh", "max"] as const;
export type ThinkingLevel = (typeof THINKING_LEVELS)[number];

export interface LaunchArgs {
	url?: string;
	ownerLink?: string;
	join?: string;
	verbose: boolean;
	theme?: string;
	noThemes: boolean;
	continue: boolean;
	resume: boolean;
	session?: string;
	/** `--fork <id>`: open a new fork of that session (a unique prefix will do), here. */
	fork?: string;
	model?: string;
	provider?: string;
	thinking?: ThinkingLevel;
	name?: string;
	/** Initial message words: they become the first draft, not a sent message. */
	draft: string;
	help: boolean;
	version: boolean;
}

export class ArgsError extends Error {
	override name = "ArgsError";
}

/** pi flags that have no meaning for a client whose sessions, tools and credentials live on a server. */
const UNSUPPORTED: Record<string, string> = {
	"--tui-mode": "p2 always uses the fullscreen renderer",
	"--session-dir": "sessions live on the p2 server",
	"--no-session": "sessions live on the p2 server",
	"--models": "the scoped models are the server's enabledModels setting",
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

export function parseLaunchArgs(argv: readonly string[]): LaunchArgs {
	const out: LaunchArgs = {
		verbose: false,
		noThemes: false,
		continue: false,
		resume: false,
		draft: "",
		help: false,
		version: false,
	};
	const words: string[] = [];
	const value = (i: number, flag: string): string => {
		const next = argv[i + 1];
		if (next === undefined || (next.startsWith("-") && next !== "-")) throw new ArgsError(`${flag} needs a value`);
		return next;
	};
	for (let i = 0; i < argv.length; i++) {
		const arg = argv[i]!;
		if (arg === "--") {
			words.push(...argv.slice(i + 1));
			break;
		}
		const unsupported = UNSUPPORTED[arg.split("=")[0]!];
		if (unsupported) throw new ArgsError(`${arg.split("=")[0]} is not supported by p2: ${unsupported}.`);
		switch (arg) {
			case "--help":
			case "-h":
				out.help = true;
				continue;
			case "--version":
			case "-v":
				out.version = true;
				continue;
			case "--verbose":
				out.verbose = true;
				continue;
			case "--no-themes":
				out.noThemes = true;
				continue;
			case "--continue":
			case "-c":
				out.continue = true;
				continue;
			case "--resume":
			case "-r":
				out.resume = true;
				continue;
			case "--theme":
			case "--use-theme":
				out.theme = value(i++, arg);
				continue;
			case "--session":
			case "--session-id":
				out.session = value(i++, arg);
				if (!/^[0-9a-f-]{36}$/.test(out.session)) throw new ArgsError(`${arg}: "${out.session}" is not a session id`);
				continue;
			case "--fork":
				out.fork = value(i++, arg);
				if (!/^[0-9a-f-]{1,36}$/.test(out.fork)) throw new ArgsError(`--fork: "${out.fork}" is not a session id`);
				continue;
			case "--model":
				out.model = value(i++, arg);
				continue;
			case "--provider":
				out.provider = value(i++, arg);
				continue;
			case "--thinking": {
				const level = value(i++, arg);
				if (!(THINKING_LEVELS as readonly string[]).includes(level)) {
					throw new ArgsError(`Invalid thinking level "${level}". Valid values: ${THINKING_LEVELS.join(", ")}`);
				}
				out.thinking = level as ThinkingLevel;
				continue;
			}
			case "--name":
			case "-n":
				out.name = value(i++, arg);
				continue;
			case "--owner-link":
				out.ownerLink = value(i++, arg);
				continue;
			case "--join":
				out.join = value(i++, arg);
				continue;
		}
		if (arg.startsWith("-") && arg !== "-") throw new ArgsError(`unknown option ${arg} (see p2 --help)`);
		if (arg.startsWith("@")) throw new ArgsError(`${arg}: attaching files from the command line is not available yet`);
		if (out.url === undefined && words.length === 0 && isUrl(arg)) out.url = arg.replace(/\/+$/, "");
		else words.push(arg);
	}
	if (out.ownerLink !== undefined && out.join !== undefined)
		throw new ArgsError("--owner-link and --join exclude each other");
	if (out.continue && out.resume) throw new ArgsError("--continue and --resume exclude each other");
	if (out.session !== undefined && (out.continue || out.resume)) {
		throw new ArgsError("--session excludes --continue and --resume");
	}
	if (out.fork !== undefined && (out.session !== undefined || out.continue || out.resume)) {
		throw new ArgsError("--fork excludes --session, --continue and --resume");
	}
	out.draft = words.join(" ");
	return out;
}

export const LAUNCH_HELP = `Usage: p2 [url] [options] [message...]

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
  --theme <name>             use this theme for this run
  --no-themes                skip custom theme files
  --verbose                  show the expanded header
  message...                 becomes the first draft in the editor (not sent)

  p2 serve --help            run a p2 server on its own
  p2 --version`;
