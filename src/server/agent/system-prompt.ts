import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, posix, resolve } from "node:path";
import type { Environment } from "../env/environment.ts";
import { shellQuote } from "../env/ssh.ts";

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

/** A context file on a remote machine is read up to this size. */
const MAX_REMOTE_CONTEXT_BYTES = 256 * 1024;

/**
 * Project instructions on a remote machine, as `loadContextFiles` finds them here: one file per directory from
 * the root down to `cwd`, pi's names in pi's order, read in one command there.
 */
export async function loadRemoteContextFiles(env: Environment, cwd: string): Promise<ContextFile[]> {
	const names = CONTEXT_FILES.join(" ");
	const script = `d=$1
while :; do
for n in ${names}; do
if [ -f "$d/$n" ] && [ -r "$d/$n" ]; then printf '%s/%s\\0' "$d" "$n"; head -c ${MAX_REMOTE_CONTEXT_BYTES} -- "$d/$n" | tr -d '\\000'; printf '\\0'; break; fi
done
[ "$d" = / ] && break
d=$(dirname -- "$d")
done`;
	const chunks: Uint8Array[] = [];
	const end = await env.exec({
		command: `sh -c ${shellQuote(script)} p2 ${shellQuote(cwd)} 2>/dev/null`,
		cwd,
		onData: (chunk) => chunks.push(chunk),
	});
	if (end.exitCode !== 0) return [];
	const fields = Buffer.concat(chunks).toString("utf8").split("\0");
	const files: ContextFile[] = [];
	for (let i = 0; i + 1 < fields.length; i += 2) {
		files.push({ path: posix.normalize(fields[i]!), content: fields[i + 1]!.replace(/^\uFEFF/, "") });
	}
	// Found from `cwd` upwards; listed from the root down.
	return files.reverse();
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
