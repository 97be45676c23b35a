/**
 * What plugins add to a conversation's agent: tools beside pi's four, sections of the system prompt, and a say
 * in each person's message before it reaches the agent. The chat plugin builds each conversation's agent and
 * asks these, in plugin order, when it does.
 */
import type { AgentTool } from "@earendil-works/pi-agent-core";
import type { Author } from "../../protocol/common.ts";

/** The conversation an agent is built for. */
export interface AgentScope {
	readonly session: string;
	/** The conversation of the session ("main", or a subagent's). */
	readonly conversation: string;
	/** The session's working directory (where its tools run). */
	readonly cwd: string;
}

/** A tool a plugin gives the agent, with the line the system prompt's tool list shows for it. */
export interface ContributedTool {
	// biome-ignore lint/suspicious/noExplicitAny: each tool has its own parameters; the agent checks arguments against its schema.
	readonly tool: AgentTool<any>;
	readonly line: string;
}

/** A person's message on its way to the agent. */
export interface PersonInput {
	readonly text: string;
	readonly author: Author;
	/** How many files come with it. */
	readonly files: number;
	/** What the person's client added for plugins (`SendArgs.extra`): untrusted, read with own-key lookups. */
	readonly extra: Readonly<Record<string, unknown>> | undefined;
}

/** An entry a plugin keeps in a conversation: `type` is `<plugin>.<name>`; its renderer draws `data`. */
export interface PluginEntry {
	readonly type: string;
	readonly data: Record<string, unknown>;
}

/**
 * What a plugin makes of a message. `refuse`: the sender gets this error and keeps the text. `keep`: stored as
 * the plugin's entry instead, and the agent does not run. Otherwise it runs; `context` is what the model reads
 * before the text (not shown), `lead` one line the transcript shows above the message. A `context` function is
 * asked when the message reaches the model: at once when it starts a run, at its delivery when it was queued.
 */
export type InputDecision =
	| { readonly refuse: string }
	| { readonly keep: PluginEntry }
	| { readonly context?: string | (() => string); readonly lead?: string };

export interface AgentContribution {
	/** A name for errors: the plugin's. */
	readonly name: string;
	tools?(scope: AgentScope): readonly ContributedTool[];
	/** Text the system prompt carries after its rules (pi's place for skills), or null for none. */
	prompt?(scope: AgentScope): string | null;
	/** Asked before a person's message starts or joins a run (and before approval mode holds it). */
	input?(scope: InputScope, input: PersonInput): InputDecision | undefined;
}

/** The conversation a message is sent to. */
export interface InputScope {
	readonly session: string;
	readonly conversation: string;
}

/**
 * What the plugins together make of a message: the first refusal or keeper decides; contexts add up, made when
 * `context` is called (when the message reaches the model).
 */
export type InputOutcome =
	| { readonly refuse: string }
	| { readonly keep: PluginEntry }
	| { readonly context: () => string | null; readonly lead: string | null };

export const PLUGIN_ENTRY_TYPE = /^[a-z][a-z0-9-]*\.[a-z][a-z0-9-]*$/;

export class AgentExtensions {
	readonly #contributions: AgentContribution[] = [];

	add(contribution: AgentContribution): () => void {
		this.#contributions.push(contribution);
		return () => {
			const at = this.#contributions.indexOf(contribution);
			if (at >= 0) this.#contributions.splice(at, 1);
		};
	}

	/** Every plugin's tools for this conversation; a name already taken (pi's or another plugin's) is refused. */
	tools(scope: AgentScope, taken: readonly string[]): ContributedTool[] {
		const names = new Set(taken);
		const out: ContributedTool[] = [];
		for (const c of this.#contributions) {
			for (const t of c.tools?.(scope) ?? []) {
				if (names.has(t.tool.name)) throw new Error(`${c.name}: a tool named ${t.tool.name} exists already`);
				names.add(t.tool.name);
				out.push(t);
			}
		}
		return out;
	}

	/** Every plugin's say in a message, in plugin order: the first that refuses or keeps it decides. */
	input(scope: InputScope, input: PersonInput): InputOutcome {
		const contexts: (string | (() => string))[] = [];
		let lead: string | null = null;
		for (const c of this.#contributions) {
			const decision = c.input?.(scope, input);
			if (!decision) continue;
			// A plugin's own object (server code), not input: `in` tells the decisions apart.
			if ("refuse" in decision) return { refuse: decision.refuse };
			if ("keep" in decision) {
				if (!PLUGIN_ENTRY_TYPE.test(decision.keep.type))
					throw new Error(`${c.name}: bad entry type ${decision.keep.type}`);
				return { keep: decision.keep };
			}
			if (decision.context) contexts.push(decision.context);
			if (decision.lead && lead === null) lead = decision.lead;
		}
		const context = () => {
			const texts = contexts.map((c) => (typeof c === "function" ? c() : c)).filter((c) => c !== "");
			return texts.length ? texts.join("\n\n") : null;
		};
		return { context, lead };
	}

	/** The prompt sections, in plugin order, without the empty ones. */
	prompt(scope: AgentScope): string[] {
		const out: string[] = [];
		for (const c of this.#contributions) {
			const text = c.prompt?.(scope);
			if (text) out.push(text);
		}
		return out;
	}
}
