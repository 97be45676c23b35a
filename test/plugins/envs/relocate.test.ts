/**
 * Sessions on another machine, through a real p2 server and a real sshd: /envs's host-key review over the Envs
 * object, a session created there, the agent's tools and `!` running there, relocation (and its refusal while
 * a command runs), and folder listings for choosing a directory.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { chatContract } from "../../../src/plugins/chat/contract.ts";
import { envsContract } from "../../../src/plugins/envs/contract.ts";
import { pathCompletionContract } from "../../../src/plugins/path-completion/contract.ts";
import { promptsContract } from "../../../src/plugins/prompts/contract.ts";
import { sessionsContract } from "../../../src/plugins/sessions/contract.ts";
import { requestId } from "../../support/chat-fixture.ts";
import { startTestServer, type TestServer, waitForState } from "../../support/p2-server.ts";
import { findSshd, TestSshd } from "../../support/sshd.ts";

const sshdPath = findSshd();

describe.skipIf(!sshdPath)("sessions on an SSH machine", () => {
	let sshd: TestSshd;
	let ts: TestServer;
	let work: string;

	beforeAll(async () => {
		sshd = await TestSshd.start(sshdPath!);
		work = join(sshd.home, "work");
		mkdirSync(join(work, "sub", "deeper"), { recursive: true });
		mkdirSync(join(work, ".dot"));
		ts = await startTestServer();
		writeFileSync(join(ts.dataDir, "envs.json"), JSON.stringify({ environments: [sshd.entry("box")] }));
		ts.server.ctx.environments.reload();
	});
	afterAll(async () => {
		await ts?.stop();
		await sshd?.stop();
	});

	test("the owner reviews the first host key, accepts it, and then the machine answers", async () => {
		const owner = await ts.connect();
		const envs = await owner.open(envsContract, {});
		const listed = await waitForState(envs, (s) => s.environments.some((e) => e.name === "box"));
		expect(listed.environments.map((e) => [e.name, e.address])).toEqual([
			["local", "this device"],
			["box", `${sshd.user}@127.0.0.1:${sshd.port}`],
		]);
		const first = await envs.call("test", { name: "box" });
		expect(first.ok).toBe(false);
		expect(first.hostKey?.status).toBe("unknown");
		const shown = first.hostKey!.offered.map((k) => k.fingerprint);
		expect(shown.length).toBe(1);
		// Listing a folder there is refused in words until the key is accepted.
		await expect(envs.call("listDirectory", { env: "box", path: "~" })).rejects.toMatchObject({
			code: "unavailable",
			message: expect.stringContaining("not verified yet"),
		});
		expect(await envs.call("acceptKey", { name: "box", fingerprints: shown })).toBeNull();
		const second = await envs.call("test", { name: "box" });
		expect(second).toMatchObject({ ok: true });
		expect(second.message).toContain(`home ${sshd.home}`);
		await waitForState(envs, (s) => s.environments.find((e) => e.name === "box")?.test?.ok === true);
		const listing = await envs.call("listDirectory", { env: "box", path: "~/work" });
		expect(listing).toEqual({ path: work, home: sshd.home, folders: [".dot", "sub"], truncated: false });
		await expect(envs.call("listDirectory", { env: "box", path: "~/nope" })).rejects.toMatchObject({
			code: "bad_args",
			message: "No such file or directory: ~/nope on box",
		});
		await expect(envs.call("listDirectory", { env: "gpu", path: "/" })).rejects.toMatchObject({
			message: "Unknown environment gpu (not in envs.json)",
		});
	});

	test("a session there runs the agent's tools and ! commands on that machine; /cd moves one there and back", async () => {
		const owner = await ts.connect();
		const sessions = await owner.open(sessionsContract, {});
		writeFileSync(join(work, "AGENTS.md"), "Remote rule: answer briefly.\n");
		const row = await sessions.call("create", { cwd: "~/work", env: "box" });
		expect(row).toMatchObject({ env: "box", cwd: work, branch: null });
		const chat = await owner.open(chatContract, { session: row.id, conversation: "main" });
		// The remote HOME (sshd's SetEnv) and SSH_CONNECTION show where it ran; this server's HOME is unset.
		await chat.call("shell", {
			command: 'pwd; echo "$HOME"; test -n "$SSH_CONNECTION" && echo over-ssh',
			includeInContext: true,
			requestId: requestId(),
		});
		let state = await waitForState(chat, (s) => s.shell === null && s.entries.some((e) => e.kind === "shell"));
		expect(state.entries.at(-1)).toMatchObject({
			kind: "shell",
			output: `${work}\n${sshd.home}\nover-ssh`,
			exitCode: 0,
		});
		ts.fake.enqueue(
			{ toolCalls: [{ id: "c1", name: "write", args: { path: "made-by-agent.txt", content: "remote" } }] },
			{ toolCalls: [{ id: "c2", name: "bash", args: { command: "cat made-by-agent.txt; pwd" } }] },
			{ text: "done" },
		);
		await chat.call("send", { text: "go", mode: "steer", requestId: requestId() });
		state = await waitForState(chat, (s) => s.live === null && s.entries.at(-1)?.kind === "assistant");
		const bash = state.entries.find((e) => e.kind === "tool" && (e as { name?: string }).name === "bash");
		expect(bash).toMatchObject({ result: { text: `remote${work}`, isError: false } });
		// The machine's project instructions reached the model, and the conversation lists them.
		expect(JSON.stringify(ts.fake.requests.at(-1))).toContain("Remote rule: answer briefly.");
		expect(state.contextFiles).toEqual([join(work, "AGENTS.md")]);

		// Moving a local session to the machine: its next command runs there.
		const here = realpathSync(ts.dataDir);
		const local = await sessions.call("create", { cwd: here });
		const moved = await sessions.call("relocate", { id: local.id, env: "box", cwd: "~/work/sub/../sub" });
		expect(moved).toMatchObject({ env: "box", cwd: join(work, "sub") });
		const chat2 = await owner.open(chatContract, { session: local.id, conversation: "main" });
		await chat2.call("shell", {
			command: 'pwd; test -n "$SSH_CONNECTION" && echo over-ssh',
			includeInContext: true,
			requestId: requestId(),
		});
		state = await waitForState(chat2, (s) => s.shell === null && s.entries.some((e) => e.kind === "shell"));
		expect(state.entries.at(-1)).toMatchObject({ output: `${join(work, "sub")}\nover-ssh` });
		// And back to this device.
		const back = await sessions.call("relocate", { id: local.id, env: "local", cwd: here });
		expect(back).toMatchObject({ env: "local", cwd: here });
		await chat2.call("shell", {
			command: 'pwd; test -z "$SSH_CONNECTION" && echo local',
			includeInContext: true,
			requestId: requestId(),
		});
		state = await waitForState(
			chat2,
			(s) => s.shell === null && s.entries.filter((e) => e.kind === "shell").length === 2,
		);
		expect(state.entries.at(-1)).toMatchObject({ output: `${here}\nlocal` });
		// @ and Tab of the session on box complete from the machine.
		const files = await owner.open(pathCompletionContract, { session: row.id });
		expect((await files.call("complete", { mode: "path", prefix: "su" })).items).toEqual([{ path: "sub/", dir: true }]);
		expect((await files.call("complete", { mode: "fuzzy", prefix: "made-by" })).items[0]).toEqual({
			path: "made-by-agent.txt",
			dir: false,
		});
		// The history stayed.
		expect(state.entries.filter((e) => e.kind === "shell").length).toBe(2);
	});

	test("prompt templates and skills come from the machine, named by its paths; they follow what a run changed there", async () => {
		const owner = await ts.connect();
		const project = join(work, "proj");
		mkdirSync(join(project, ".pi", "prompts"), { recursive: true });
		mkdirSync(join(project, ".pi", "skills", "deploy"), { recursive: true });
		mkdirSync(join(sshd.home, ".pi", "p2", "prompts"), { recursive: true });
		writeFileSync(
			join(project, ".pi", "prompts", "review.md"),
			"---\ndescription: Review it\n---\nReview $1 carefully.\n",
		);
		writeFileSync(
			join(project, ".pi", "skills", "deploy", "SKILL.md"),
			"---\nname: deploy\ndescription: Deploys the thing\n---\nRun the deploy script.\n",
		);
		// Only the machine's HOME (sshd's) has these: this server has no HOME at all.
		writeFileSync(join(sshd.home, ".pi", "p2", "prompts", "from-home.md"), "Hello from the machine's home.\n");
		mkdirSync(join(sshd.home, ".pi", "agent", "prompts"), { recursive: true });
		writeFileSync(join(sshd.home, ".pi", "agent", "prompts", "pi-user.md"), "The machine's pi user template.\n");
		mkdirSync(join(sshd.home, ".agents", "skills", "helper"), { recursive: true });
		writeFileSync(
			join(sshd.home, ".agents", "skills", "helper", "SKILL.md"),
			"---\nname: helper\ndescription: Helps on the machine\n---\nHelp.\n",
		);
		const sessions = await owner.open(sessionsContract, {});
		const remote = await sessions.call("create", { cwd: project, env: "box" });
		const prompts = await owner.open(promptsContract, { session: remote.id });
		const state = await waitForState(prompts, (s) => s.templates.length === 3 && s.skills.length === 2);
		expect(state.templates.map((t) => [t.name, t.path]).sort()).toEqual([
			["from-home", join(sshd.home, ".pi", "p2", "prompts", "from-home.md")],
			["pi-user", join(sshd.home, ".pi", "agent", "prompts", "pi-user.md")],
			["review", join(project, ".pi", "prompts", "review.md")],
		]);
		expect(state.skills.map((k) => [k.name, k.path]).sort()).toEqual([
			["deploy", join(project, ".pi", "skills", "deploy", "SKILL.md")],
			["helper", join(sshd.home, ".agents", "skills", "helper", "SKILL.md")],
		]);
		const skill = await prompts.call("expand", { text: "/skill:deploy now" });
		expect(skill.text).toContain(`location="${join(project, ".pi", "skills", "deploy", "SKILL.md")}"`);
		expect(skill.text).toContain("Run the deploy script.");
		expect((await prompts.call("expand", { text: "/review main.ts" })).text).toBe("Review main.ts carefully.");
		// This device's own listing of the same session directory has no machine home template.
		const local = await sessions.call("create", { cwd: project });
		const localPrompts = await owner.open(promptsContract, { session: local.id });
		const here = await waitForState(localPrompts, (s) => s.templates.length > 0);
		expect(here.templates.map((t) => t.name)).toEqual(["review"]);
		// A template made there shows after the next run or command ends (nothing watches another machine).
		const chat = await owner.open(chatContract, { session: remote.id, conversation: "main" });
		await chat.call("shell", {
			command: "printf 'New one.' > .pi/prompts/fresh.md",
			includeInContext: false,
			requestId: requestId(),
		});
		await waitForState(prompts, (s) => s.templates.some((t) => t.name === "fresh"));
	});

	test("relocation is refused while a command runs, and where there is no such directory", async () => {
		const owner = await ts.connect();
		const sessions = await owner.open(sessionsContract, {});
		const row = await sessions.call("create", { cwd: "~/work", env: "box" });
		const chat = await owner.open(chatContract, { session: row.id, conversation: "main" });
		const running = chat.call("shell", {
			command: "echo started; sleep 30",
			includeInContext: false,
			requestId: requestId(),
		});
		await waitForState(chat, (s) => s.shell?.output.includes("started") === true);
		await expect(sessions.call("relocate", { id: row.id, env: "local", cwd: "/" })).rejects.toMatchObject({
			code: "conflict",
			message: "Stop the current run before changing directory",
		});
		await chat.call("stop", null);
		expect(await running).toEqual({ exitCode: null, cancelled: true });
		await expect(sessions.call("relocate", { id: row.id, env: "box", cwd: "~/missing" })).rejects.toMatchObject({
			code: "bad_args",
			message: "No such file or directory: ~/missing on box",
		});
		await expect(sessions.call("relocate", { id: row.id, env: "gpu", cwd: "/" })).rejects.toMatchObject({
			message: "Unknown environment gpu (not in envs.json)",
		});
	});
});
