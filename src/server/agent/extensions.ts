/**
 * What plugins add to a conversation's agent: tools beside pi's four and sections of the system prompt. The
 * chat plugin builds each conversation's agent and asks these, in plugin order, when it does.
 */
import type { AgentTool } from "@earendil-works/pi-agent-core";

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

export interface AgentContribution {
	/** A name for errors: the plugin's. */
	readonly name: string;
	tools?(scope: AgentScope): readonly ContributedTool[];
	/** Text the system prompt carries after its rules (pi's place for skills), or null for none. */
	prompt?(scope: AgentScope): string | null;
}

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
