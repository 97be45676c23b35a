// biome-ignore-all lint/suspicious/noTemplateCurlyInString: pi's placeholders are the text under test.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { chatContract } from "../../../src/plugins/chat/contract.ts";
import { promptsContract } from "../../../src/plugins/prompts/contract.ts";
import { chatFixture, requestId } from "../../support/chat-fixture.ts";
import { joinAsGuest } from "../../support/guests.ts";
import { connectClient, waitForState } from "../../support/p2-server.ts";
import { type ResourceMachine, resourceMachine, skillFile } from "./fixture.ts";

/** The server's machine: its HOME holds the person's pi directory and ~/.agents. */
const m: ResourceMachine = resourceMachine();
afterAll(() => rmSync(m.root, { recursive: true, force: true }));

const served = chatFixture({ env: { HOME: m.home } });

interface FakeRequest {
	messages: { role: string; content: unknown }[];
}

describe("a session's templates and skills on the server", () => {
	test("listed for those who may send, expanded on the server, live as files change", async () => {
		const server = await served.start();
		// The server's own templates, in its data directory.
		mkdirSync(join(server.dataDir, "prompts"));
		writeFileSync(join(server.dataDir, "prompts/deploy.md"), "Deploy ${@:1}\n");
		const owner = await server.connect();
		const { id } = await served.session(owner, m.cwd);
		const prompts = await owner.open(promptsContract, { session: id });
		const state = prompts.state!;
		expect(state.templates.map((t) => t.name).sort()).toEqual(["deploy", "fix", "notes", "review"]);
		expect(state.templates.find((t) => t.name === "review")).toMatchObject({
			description: "Review the project",
			argumentHint: "<file> [focus]",
			scope: "project",
		});
		expect(state.skills.map((s) => s.name)).toContain("mid");
		expect(state.warnings.some((w) => w.message === 'name "lint" collision')).toBe(true);
		expect(await prompts.call("expand", { text: "/deploy prod now" })).toEqual({
			text: "Deploy prod now\n",
			kind: "template",
		});

		// A new template, a new skill in an existing directory, and one in a directory that did not exist.
		writeFileSync(join(m.cwd, ".pi/prompts/ship.md"), "Ship $1\n");
		mkdirSync(join(m.home, ".agents/skills/new-skill"));
		writeFileSync(join(m.home, ".agents/skills/new-skill/SKILL.md"), skillFile("new-skill", "Arrived later", "New."));
		const live = await waitForState(
			prompts,
			(s) => s.templates.some((t) => t.name === "ship") && s.skills.some((sk) => sk.name === "new-skill"),
		);
		expect(live.skills.find((s) => s.name === "new-skill")?.description).toBe("Arrived later");
		expect(await prompts.call("expand", { text: "/ship it" })).toEqual({ text: "Ship it\n", kind: "template" });
		mkdirSync(join(m.agentDir, "skills/later/deeper"), { recursive: true });
		writeFileSync(join(m.agentDir, "skills/later/deeper/SKILL.md"), skillFile("later", "Deep and late", "x"));
		await waitForState(prompts, (s) => s.skills.some((sk) => sk.name === "later"));
		rmSync(join(m.cwd, ".pi/prompts/ship.md"));
		await waitForState(prompts, (s) => !s.templates.some((t) => t.name === "ship"));
	});

	test("a project that had no .pi directory: its first template is seen as the directories appear", async () => {
		const server = await served.start();
		const owner = await server.connect();
		const { id, cwd } = await served.session(owner);
		const prompts = await owner.open(promptsContract, { session: id });
		expect(prompts.state?.templates.some((t) => t.scope === "project")).toBe(false);
		mkdirSync(join(cwd, ".pi"));
		mkdirSync(join(cwd, ".pi", "prompts"));
		writeFileSync(join(cwd, ".pi", "prompts", "first.md"), "First $1");
		await waitForState(prompts, (s) => s.templates.some((t) => t.name === "first" && t.scope === "project"));
		// Now watched itself: a second file in the new directory is seen too.
		writeFileSync(join(cwd, ".pi", "prompts", "second.md"), "Second");
		await waitForState(prompts, (s) => s.templates.some((t) => t.name === "second"));
	});

	test("an expansion longer than a message may be is refused with a clear error, and nothing is built", async () => {
		const server = await served.start();
		const owner = await server.connect();
		const { id, cwd } = await served.session(owner);
		mkdirSync(join(cwd, ".pi", "prompts"), { recursive: true });
		writeFileSync(join(cwd, ".pi", "prompts", "echo.md"), "$@ $@ $@ $@ $@ $@ $@ $@ $@ $@");
		const prompts = await owner.open(promptsContract, { session: id });
		await waitForState(prompts, (s) => s.templates.some((t) => t.name === "echo"));
		await expect(prompts.call("expand", { text: `/echo ${"x".repeat(100_000)}` })).rejects.toThrow(
			"the expanded text is longer than 262144 characters",
		);
		expect((await prompts.call("expand", { text: "/echo hi" })).text).toBe("hi hi hi hi hi hi hi hi hi hi");
	});

	test("a full guest lists and expands; a view-only guest never receives them", async () => {
		const server = await served.start();
		const owner = await server.connect();
		const { id } = await served.session(owner, m.cwd);
		const full = await connectClient(server.server, { cookie: await joinAsGuest(server.server, owner, id, "full") });
		const view = await connectClient(server.server, { cookie: await joinAsGuest(server.server, owner, id, "view") });
		try {
			const asFull = await full.open(promptsContract, { session: id });
			expect(asFull.state?.templates.length).toBeGreaterThan(0);
			expect((await asFull.call("expand", { text: "/fix it" })).text).toBe("Fix it now.");
			await expect(view.open(promptsContract, { session: id })).rejects.toThrow();
			expect(view.frames.join("\n")).not.toContain("Review the project");
		} finally {
			full.close();
			view.close();
		}
	});

	test("the system prompt lists the skills the model may use, and again after one is added", async () => {
		const server = await served.start();
		const owner = await server.connect();
		const { id } = await served.session(owner, m.cwd);
		const chat = await owner.open(chatContract, { session: id, conversation: "main" });
		server.fake.enqueue({ text: "One." }, { text: "Two." });
		await chat.call("send", { text: "first", mode: "steer", requestId: requestId() });
		await waitForState(chat, (s) => s.live === null && s.entries.filter((e) => e.kind === "assistant").length === 1);
		const system = (n: number) => String((server.fake.requests[n] as FakeRequest).messages[0]?.content);
		expect(system(0)).toContain("<available_skills>");
		expect(system(0)).toContain("<name>lint</name>");
		expect(system(0)).not.toContain("<name>pdf</name>");
		expect(system(0).indexOf("<available_skills>")).toBeLessThan(system(0).indexOf("<cwd>"));
		expect(system(0)).not.toContain("<name>added</name>");

		writeFileSync(join(m.cwd, ".pi/skills/added.md"), skillFile("added", "Added between two messages", "x"));
		await chat.call("send", { text: "second", mode: "steer", requestId: requestId() });
		await waitForState(chat, (s) => s.live === null && s.entries.filter((e) => e.kind === "assistant").length === 2);
		expect(system(1)).toContain("<name>added</name>");
		rmSync(join(m.cwd, ".pi/skills/added.md"));
	});
});
