/**
 * Where a session's prompt templates and skills come from, found as pi 1.6.0 finds them on the session's
 * machine: the project's `.pi/prompts` and `.pi/skills`, the `.agents/skills` of the working directory and its
 * ancestors up to the repository root, then the person's pi directory (`$PI_CODING_AGENT_DIR`, else
 * `~/.pi/agent`) and `~/.agents/skills`, and the server's own `<data>/prompts`. The first of a name wins; a
 * clash, an unreadable file or a malformed skill is a warning, never a failure. Ignore files in those
 * directories (`.gitignore`, `.ignore`, `.fdignore`) are honoured, as pi does.
 */
import { type Dirent, existsSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { IgnoreRules } from "./ignore-rules.ts";

/** Where a resource was found: pi's `[p]` and `[u]`, and the server's own directory. */
export type Scope = "project" | "user" | "server";

export interface Template {
	readonly name: string;
	readonly description: string;
	readonly argumentHint?: string;
	/** The text after the frontmatter, with its placeholders. */
	readonly content: string;
	readonly path: string;
	readonly scope: Scope;
}

export interface Skill {
	readonly name: string;
	readonly description: string;
	/** Its SKILL.md (or standalone .md). */
	readonly path: string;
	/** The directory its references are relative to. */
	readonly dir: string;
	readonly scope: Scope;
	/** `disable-model-invocation: true`: left out of the system prompt, still invocable by /skill:. */
	readonly hidden: boolean;
}

export interface ResourceWarning {
	readonly kind: "skill" | "prompt";
	readonly message: string;
	readonly path: string;
	/** A name clash: the name, and which file kept it. */
	readonly name?: string;
	readonly winner?: string;
}

export interface Resources {
	readonly templates: readonly Template[];
	readonly skills: readonly Skill[];
	readonly warnings: readonly ResourceWarning[];
}

export interface Locations {
	/** The session's working directory. */
	readonly cwd: string;
	/**
	 * False for a session on another machine (SSH): its directory is not on this one, so no project directory
	 * is read here (only the server's and the user's).
	 */
	readonly project?: boolean;
	/** pi's agent directory on this machine (`$PI_CODING_AGENT_DIR`, else `~/.pi/agent`); none: not read. */
	readonly agentDir: string | undefined;
	/** The home directory (for `~/.agents/skills`); none: not read. */
	readonly home: string | undefined;
	/** The server's data directory (its `prompts/`). */
	readonly dataDir: string;
	/** Instead of `<data>/prompts`: a remote machine's `~/.pi/p2/prompts` (as mirrored here). */
	readonly serverPrompts?: string;
}

const MAX_SKILL_NAME = 64;
const MAX_SKILL_DESCRIPTION = 1024;
const MAX_FILE_BYTES = 1024 * 1024;

/** The directories a session's resources are read from, in pi's order (the first of a name wins). */
export function resourceDirs(loc: Locations): {
	prompts: { dir: string; scope: Scope }[];
	skills: { dir: string; scope: Scope; mode: "pi" | "agents" }[];
} {
	const cwd = resolve(loc.cwd);
	const agentDir = loc.agentDir === undefined ? undefined : resolve(loc.agentDir);
	const userAgents = loc.home === undefined ? undefined : join(resolve(loc.home), ".agents", "skills");
	const project = loc.project !== false;
	const ancestors = (project ? ancestorDirs(cwd) : [])
		.map((dir) => join(dir, ".agents", "skills"))
		.filter((dir) => dir !== userAgents);
	return {
		prompts: [
			...(project ? [{ dir: join(cwd, ".pi", "prompts"), scope: "project" as const }] : []),
			...(agentDir ? [{ dir: join(agentDir, "prompts"), scope: "user" as const }] : []),
			{ dir: loc.serverPrompts ?? join(resolve(loc.dataDir), "prompts"), scope: "server" as const },
		],
		skills: [
			...(project ? [{ dir: join(cwd, ".pi", "skills"), scope: "project" as const, mode: "pi" as const }] : []),
			...ancestors.map((dir) => ({ dir, scope: "project" as const, mode: "agents" as const })),
			...(agentDir ? [{ dir: join(agentDir, "skills"), scope: "user" as const, mode: "pi" as const }] : []),
			...(userAgents ? [{ dir: userAgents, scope: "user" as const, mode: "agents" as const }] : []),
		],
	};
}

/** The working directory and its ancestors, stopping at the repository root (a directory holding `.git`). */
function ancestorDirs(cwd: string): string[] {
	let root: string | null = null;
	for (let dir = cwd; ; dir = dirname(dir)) {
		if (existsSync(join(dir, ".git"))) {
			root = dir;
			break;
		}
		if (dirname(dir) === dir) break;
	}
	const out: string[] = [];
	for (let dir = cwd; ; dir = dirname(dir)) {
		out.push(dir);
		if (dir === root || dirname(dir) === dir) break;
	}
	return out;
}

export function loadResources(loc: Locations): Resources {
	const dirs = resourceDirs(loc);
	const warnings: ResourceWarning[] = [];
	// pi lists the clashes after the other warnings of their kind.
	const clashes: ResourceWarning[] = [];
	const templates = new Map<string, Template>();
	for (const { dir, scope } of dirs.prompts) {
		for (const path of markdownFiles(dir)) {
			const template = readTemplate(path, scope, warnings);
			if (!template) continue;
			const winner = templates.get(template.name);
			if (winner) {
				clashes.push({
					kind: "prompt",
					message: `name "/${template.name}" collision`,
					path,
					name: template.name,
					winner: winner.path,
				});
			} else templates.set(template.name, template);
		}
	}
	warnings.push(...clashes.splice(0));
	const skills = new Map<string, Skill>();
	const seenFiles = new Set<string>();
	for (const { dir, scope, mode } of dirs.skills) {
		for (const path of skillFiles(dir, mode, dir)) {
			const skill = readSkill(path, scope, warnings);
			if (!skill) continue;
			// The same file reached twice (a symbolic link) is the same skill, not a clash.
			const real = realPath(path);
			if (seenFiles.has(real)) continue;
			const winner = skills.get(skill.name);
			if (winner) {
				clashes.push({
					kind: "skill",
					message: `name "${skill.name}" collision`,
					path,
					name: skill.name,
					winner: winner.path,
				});
			} else {
				skills.set(skill.name, skill);
				seenFiles.add(real);
			}
		}
	}
	return { templates: [...templates.values()], skills: [...skills.values()], warnings: [...warnings, ...clashes] };
}

function realPath(path: string): string {
	try {
		return realpathSync(path);
	} catch {
		return path;
	}
}

function entriesOf(dir: string): Dirent[] {
	try {
		return readdirSync(dir, { withFileTypes: true });
	} catch {
		return [];
	}
}

/** What an entry is, following a symbolic link (a broken one is neither). */
function kindOf(dir: string, entry: Dirent): { file: boolean; dir: boolean } {
	if (!entry.isSymbolicLink()) return { file: entry.isFile(), dir: entry.isDirectory() };
	try {
		const stats = statSync(join(dir, entry.name));
		return { file: stats.isFile(), dir: stats.isDirectory() };
	} catch {
		return { file: false, dir: false };
	}
}

/** A prompt directory's direct `.md` children (not hidden, not in its ignore files), as pi lists them. */
function markdownFiles(dir: string): string[] {
	const rules = new IgnoreRules();
	rules.addFrom(dir, dir);
	return entriesOf(dir)
		.filter((e) => !e.name.startsWith(".") && e.name.endsWith(".md") && !rules.ignores(e.name, false))
		.filter((e) => kindOf(dir, e).file)
		.map((e) => join(dir, e.name));
}

/**
 * Skill files under a skills directory, as pi walks it: a directory holding `SKILL.md` is one skill and is not
 * entered further; otherwise its subdirectories are (never hidden ones, node_modules, or what an ignore file
 * names). Standalone `.md` files count directly in a pi skills directory, and only below the top in an
 * `.agents` one.
 */
function skillFiles(dir: string, mode: "pi" | "agents", root: string, rules = new IgnoreRules()): string[] {
	rules.addFrom(dir, root);
	const rel = (name: string) => relative(root, join(dir, name)).split(sep).join("/");
	const entries = entriesOf(dir);
	const marker = entries.find((e) => e.name === "SKILL.md" && kindOf(dir, e).file);
	if (marker && !rules.ignores(rel(marker.name), false)) return [join(dir, marker.name)];
	const out: string[] = [];
	for (const e of entries) {
		if (e.name.startsWith(".") || e.name === "node_modules") continue;
		const kind = kindOf(dir, e);
		if (rules.ignores(rel(e.name), kind.dir)) continue;
		const top = dir === root;
		if (kind.file && e.name.endsWith(".md") && (mode === "pi" ? top : !top)) out.push(join(dir, e.name));
		else if (kind.dir) out.push(...skillFiles(join(dir, e.name), mode, root, rules));
	}
	return out;
}

function readText(path: string): string {
	if (statSync(path).size > MAX_FILE_BYTES) throw new Error(`larger than ${MAX_FILE_BYTES} bytes`);
	return readFileSync(path, "utf8");
}

/** A Markdown file's YAML frontmatter (an object, else empty) and its body; throws on malformed YAML. */
export function parseFrontmatter(text: string): { fields: Map<string, unknown>; body: string } {
	const normalized = text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
	const end = normalized.startsWith("---") ? normalized.indexOf("\n---", 3) : -1;
	const yaml = end < 0 ? "" : normalized.slice(4, end);
	// No frontmatter, or an empty one: the whole text is the body (pi).
	if (!yaml) return { fields: new Map(), body: normalized };
	const parsed: unknown = Bun.YAML.parse(yaml);
	const fields = new Map<string, unknown>();
	if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) {
		for (const key of Object.keys(parsed)) fields.set(key, (parsed as Record<string, unknown>)[key]);
	}
	return { fields, body: normalized.slice(end + 4).trim() };
}

function errorMessage(error: unknown, fallback: string): string {
	return error instanceof Error && error.message ? error.message : fallback;
}

function readTemplate(path: string, scope: Scope, warnings: ResourceWarning[]): Template | null {
	let parsed: ReturnType<typeof parseFrontmatter>;
	try {
		parsed = parseFrontmatter(readText(path));
	} catch (error) {
		warnings.push({ kind: "prompt", message: errorMessage(error, "failed to read prompt template file"), path });
		return null;
	}
	const { fields, body } = parsed;
	const given = fields.get("description");
	let description = typeof given === "string" ? given : "";
	if (!description) {
		const first = body.split("\n").find((line) => line.trim());
		if (first) description = first.length > 60 ? `${first.slice(0, 60)}...` : first;
	}
	const hint = fields.get("argument-hint");
	return {
		name: basename(path).replace(/\.md$/, ""),
		description,
		...(typeof hint === "string" && hint ? { argumentHint: hint } : {}),
		content: body,
		path,
		scope,
	};
}

function readSkill(path: string, scope: Scope, warnings: ResourceWarning[]): Skill | null {
	const declared = basename(path) === "SKILL.md";
	let fields: Map<string, unknown>;
	try {
		fields = parseFrontmatter(readText(path)).fields;
	} catch (error) {
		// A standalone .md that is not a skill is no concern of the person's.
		if (declared) warnings.push({ kind: "skill", message: errorMessage(error, "failed to parse skill file"), path });
		return null;
	}
	const given = fields.get("description");
	const description = typeof given === "string" && given.trim() !== "" ? given : null;
	if (!declared && description === null) return null;
	if (description === null) warnings.push({ kind: "skill", message: "description is required", path });
	else if (description.length > MAX_SKILL_DESCRIPTION) {
		warnings.push({
			kind: "skill",
			message: `description exceeds ${MAX_SKILL_DESCRIPTION} characters (${description.length})`,
			path,
		});
	}
	const dir = dirname(path);
	const named = fields.get("name");
	const name = typeof named === "string" && named ? named : basename(dir);
	for (const message of nameProblems(name)) warnings.push({ kind: "skill", message, path });
	if (description === null) return null;
	return { name, description, path, dir, scope, hidden: fields.get("disable-model-invocation") === true };
}

/** The Agent Skills rules for a name; a skill with a bad name still loads (pi warns). */
function nameProblems(name: string): string[] {
	const problems: string[] = [];
	if (name.length > MAX_SKILL_NAME) problems.push(`name exceeds ${MAX_SKILL_NAME} characters (${name.length})`);
	if (!/^[a-z0-9-]+$/.test(name)) {
		problems.push("name contains invalid characters (must be lowercase a-z, 0-9, hyphens only)");
	}
	if (name.startsWith("-") || name.endsWith("-")) problems.push("name must not start or end with a hyphen");
	if (name.includes("--")) problems.push("name must not contain consecutive hyphens");
	return problems;
}
