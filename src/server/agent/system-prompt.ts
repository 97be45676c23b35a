import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/** Context file names looked for in each directory, first match wins (pi's order). */
const CONTEXT_FILES = ["AGENTS.override.md", "AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD"];

const TOOL_LINES: Record<string, string> = {
	read: "read a file's contents (text or image), optionally a range of lines",
	bash: "run a shell command in the working directory and see its output",
	edit: "replace exact text in a file; each old text must match exactly once",
	write: "create or overwrite a file with the given content",
};

export interface ContextFile {
	readonly path: string;
	readonly content: string;
}

function contextFileIn(dir: string): ContextFile | null {
	for (const name of CONTEXT_FILES) {
		const path = join(dir, name);
		try {
			if (!existsSync(path) || !statSync(path).isFile()) continue;
			return { path, content: readFileSync(path, "utf8").replace(/^\uFEFF/, "") };
		} catch {
			// Unreadable: try the next name, as pi does.
		}
	}
	return null;
}

/**
 * Project instructions as pi loads them: the global agent directory's file first, then one file per directory
 * from the filesystem root down to `cwd`.
 */
export function loadContextFiles(cwd: string, agentDir?: string): ContextFile[] {
	const files: ContextFile[] = [];
	const seen = new Set<string>();
	if (agentDir) {
		const global = contextFileIn(resolve(agentDir));
		if (global) {
			files.push(global);
			seen.add(global.path);
		}
	}
	const ancestors: ContextFile[] = [];
	for (let dir = resolve(cwd); ; dir = dirname(dir)) {
		const file = contextFileIn(dir);
		if (file && !seen.has(file.path)) {
			ancestors.unshift(file);
			seen.add(file.path);
		}
		if (dirname(dir) === dir) break;
	}
	return [...files, ...ancestors];
}

function section(name: string, body: string): string {
	return `<${name}>\n${body}\n</${name}>`;
}

/**
 * The system prompt of a conversation: pi's structure (preamble, tools, rules, project context, cwd). `context`:
 * the context files already loaded (the UI lists them), else they are loaded here.
 */
export function buildSystemPrompt(options: {
	cwd: string;
	toolNames: readonly string[];
	agentDir?: string;
	context?: readonly ContextFile[];
	/** Lines for plugins' tools, by name, listed after pi's. */
	toolLines?: ReadonlyMap<string, string>;
	/** Plugins' sections (pi's place for skills): after the project context, before the working directory. */
	sections?: readonly string[];
}): string {
	const lineOf = (name: string) => TOOL_LINES[name] ?? options.toolLines?.get(name);
	const tools = options.toolNames.filter((name) => lineOf(name));
	const rules: string[] = [];
	if (tools.includes("bash")) rules.push("Use bash for file operations like ls, rg, find");
	if (tools.includes("read")) rules.push("Use read to look at files rather than cat or sed");
	if (tools.includes("edit")) rules.push("Use edit for precise changes; old text must match the file exactly");
	rules.push("Be concise in your responses", "Show file paths clearly when working with files");
	const parts = [
		"You are a coding assistant running inside p2, a multi-user coding agent harness compatible with pi. Help users inspect files, run commands, and modify code.",
		section(
			"tools",
			`${tools.length ? tools.map((name) => `- ${name}: ${lineOf(name)}`).join("\n") : "(none)"}\n\nAdditional tools may be available.`,
		),
		section("rules", rules.map((r) => `- ${r}`).join("\n")),
	];
	const context = options.context ?? loadContextFiles(options.cwd, options.agentDir);
	if (context.length > 0) {
		parts.push(
			section(
				"project_context",
				[
					"Project-specific instructions and guidelines:",
					...context.map((f) => `<project_instructions path="${f.path}">\n${f.content}\n</project_instructions>`),
				].join("\n\n"),
			),
		);
	}
	parts.push(...(options.sections ?? []));
	parts.push(section("cwd", options.cwd.replace(/\\/g, "/")));
	return parts.join("\n\n");
}
