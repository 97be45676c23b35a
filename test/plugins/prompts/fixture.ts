// biome-ignore-all lint/suspicious/noTemplateCurlyInString: pi's placeholders are the text under test.
/**
 * A machine with pi resources in every place pi looks: a repository with a nested working directory, the
 * person's pi directory and ~/.agents, and the server's data directory. Names clash on purpose.
 */
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

export interface ResourceMachine {
	readonly root: string;
	readonly home: string;
	readonly agentDir: string;
	readonly dataDir: string;
	/** The repository (it holds `.git`). */
	readonly repo: string;
	/** The session's working directory, two levels inside the repository. */
	readonly cwd: string;
}

export function skillFile(name: string | undefined, description: string | undefined, body: string, extra = ""): string {
	const lines = ["---"];
	if (name !== undefined) lines.push(`name: ${name}`);
	if (description !== undefined) lines.push(`description: ${description}`);
	if (extra) lines.push(extra);
	lines.push("---", body);
	return `${lines.join("\n")}\n`;
}

export function resourceMachine(): ResourceMachine {
	const root = realpathSync(mkdtempSync(join(tmpdir(), "p2-prompts-")));
	const home = join(root, "home");
	const agentDir = join(home, ".pi", "agent");
	const dataDir = join(root, "data");
	const repo = join(root, "work", "repo");
	const cwd = join(repo, "pkg", "app");
	const files: Record<string, string> = {
		// Templates: the project's, the person's, the server's.
		[join(cwd, ".pi/prompts/review.md")]:
			'---\ndescription: Review the project\nargument-hint: "<file> [focus]"\n---\nReview $1 for ${2:-correctness}.\n',
		[join(cwd, ".pi/prompts/notes.md")]: "\n\nFirst line of the notes template is the description\nmore\n",
		[join(cwd, ".pi/prompts/nested/deep.md")]: "not a template: prompts are direct children only\n",
		[join(cwd, ".pi/prompts/.hidden.md")]: "hidden\n",
		[join(cwd, ".pi/prompts/readme.txt")]: "not markdown\n",
		[join(agentDir, "prompts/review.md")]: "The person's review (loses to the project's)\n",
		[join(agentDir, "prompts/fix.md")]: "---\ndescription: Fix it\n---\nFix $@ now.\n",
		[join(agentDir, "prompts/broken.md")]: "---\ndescription: [unclosed\n---\nbody\n",
		[join(dataDir, "prompts/deploy.md")]: "Deploy ${@:1}\n",
		[join(dataDir, "prompts/fix.md")]: "The server's fix (loses to the person's)\n",
		// Skills: project .pi/skills, .agents/skills in the cwd, an ancestor and the repository root, the user's.
		[join(cwd, ".pi/skills/lint/SKILL.md")]: skillFile("lint", "Lint the code", "Run the linter."),
		[join(cwd, ".pi/skills/lint/sub/SKILL.md")]: skillFile("inner", "Never found: lint stops the walk", "x"),
		[join(cwd, ".pi/skills/group/pdf/SKILL.md")]: skillFile(
			"pdf",
			"Read PDFs",
			"Use scripts/extract.sh.",
			"disable-model-invocation: true",
		),
		[join(cwd, ".pi/skills/standalone.md")]: skillFile("standalone", "A standalone skill file", "Standalone."),
		[join(cwd, ".pi/skills/plain.md")]: "# just notes, no frontmatter\n",
		[join(cwd, ".pi/skills/node_modules/dep/SKILL.md")]: skillFile("dep", "never", "x"),
		[join(cwd, ".agents/skills/here/SKILL.md")]: skillFile("here", "From the working directory", "Here."),
		[join(repo, "pkg/.agents/skills/mid/SKILL.md")]: skillFile("mid", "From an ancestor", "Mid."),
		[join(repo, ".agents/skills/lint/SKILL.md")]: skillFile("lint", "The repository's lint (loses)", "x"),
		[join(repo, ".agents/skills/top.md")]: skillFile("top", "Top-level .md in .agents is not a skill", "x"),
		[join(repo, ".agents/skills/docs/guide.md")]: skillFile("guide", "A nested .md in .agents is one", "Guide."),
		[join(root, "work/.agents/skills/outside/SKILL.md")]: skillFile("outside", "Above the repository root", "x"),
		[join(agentDir, "skills/mine/SKILL.md")]: skillFile(undefined, "Named after its directory", "Mine."),
		[join(agentDir, "skills/nodesc/SKILL.md")]: skillFile("nodesc", undefined, "x"),
		[join(agentDir, "skills/Bad_Name/SKILL.md")]: skillFile("Bad_Name", "Loads with a warning", "x"),
		[join(home, ".agents/skills/shared/SKILL.md")]: skillFile("shared", "From ~/.agents", "Shared."),
		[join(home, ".agents/skills/here/SKILL.md")]: skillFile("here", "Loses to the project's", "x"),
		// Ignore files, as pi honours them.
		[join(cwd, ".pi/prompts/.gitignore")]: "# drafts\nwip.md\n",
		[join(cwd, ".pi/prompts/wip.md")]: "An ignored template\n",
		[join(cwd, ".pi/skills/.gitignore")]: "drafts/\n*.tmp.md\n!keep.tmp.md\n",
		[join(cwd, ".pi/skills/drafts/wip/SKILL.md")]: skillFile("wip", "In an ignored directory", "x"),
		[join(cwd, ".pi/skills/scratch.tmp.md")]: skillFile("scratch", "An ignored standalone skill", "x"),
		[join(cwd, ".pi/skills/keep.tmp.md")]: skillFile("keep", "Taken back by a negation", "Keep."),
		[join(agentDir, "skills/tools/.ignore")]: "/old\n",
		[join(agentDir, "skills/tools/old/SKILL.md")]: skillFile("old-tool", "Ignored by its parent's .ignore", "x"),
		[join(agentDir, "skills/tools/new/SKILL.md")]: skillFile("new-tool", "Next to an ignored one", "New."),
	};
	for (const [path, text] of Object.entries(files)) {
		mkdirSync(dirname(path), { recursive: true });
		writeFileSync(path, text);
	}
	mkdirSync(join(repo, ".git"), { recursive: true });
	// The same skill reached twice through a link is one skill, not a clash.
	symlinkSync(join(agentDir, "skills/mine"), join(home, ".agents/skills/mine-link"));
	return { root, home, agentDir, dataDir, repo, cwd };
}
