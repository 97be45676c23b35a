/**
 * What a new UI worker is told at start: the server's origin, the terminal, the command line as the UI needs
 * it, the person's preferences, and this device's directories only when the server is this device's.
 */
import type { StartData } from "../protocol/channel.ts";
import type { Preferences } from "../protocol/preferences.ts";
import type { LaunchArgs } from "./args.ts";
import type { LaunchTarget } from "./launch-target.ts";
import type { MousePolicy } from "./output-filter.ts";
import { sharedEnv, type TerminalProbe } from "./terminal-probe.ts";

export interface StartFacts {
	readonly args: LaunchArgs;
	readonly target: LaunchTarget;
	readonly env: Record<string, string | undefined>;
	readonly terminal: { readonly columns: number; readonly rows: number };
	readonly probe: TerminalProbe;
	readonly mouse: MousePolicy;
	readonly preferences: Preferences;
	readonly lastSession?: string;
	readonly local?: { readonly cwd: string; readonly home: string };
}

export function startDataOf(facts: StartFacts, reason: StartData["reason"], snapshot: string | undefined): StartData {
	const { args, target, probe } = facts;
	return {
		origin: target.origin(),
		columns: facts.terminal.columns,
		rows: facts.terminal.rows,
		capabilities: probe.capabilities(),
		...(probe.colors ? { terminalColors: probe.colors } : {}),
		env: sharedEnv(facts.env),
		mouse: facts.mouse,
		...(facts.local && target.kind === "device" ? { local: { ...facts.local } } : {}),
		signedInAs: target.kind,
		args: {
			verbose: args.verbose,
			draft: args.draft,
			...(args.files.length ? { files: args.files } : {}),
			...(args.models ? { models: args.models } : {}),
			...(args.session ? { session: args.session } : {}),
			...(args.fork ? { fork: args.fork } : {}),
			continue: args.continue,
			resume: args.resume,
			...(facts.lastSession ? { lastSession: facts.lastSession } : {}),
			...(args.model ? { model: args.model } : {}),
			...(args.provider ? { provider: args.provider } : {}),
			...(args.thinking ? { thinking: args.thinking } : {}),
			...(args.name ? { name: args.name } : {}),
			...(args.theme ? { theme: args.theme } : {}),
			...(args.tuiMode ? { tuiMode: args.tuiMode } : {}),
		},
		preferences: facts.preferences,
		...(snapshot ? { snapshot } : {}),
		reason,
	};
}
