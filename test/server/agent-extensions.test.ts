import { describe, expect, test } from "bun:test";
import { obj, str } from "@earendil-works/pi-schema";
import type { ServerPlugin } from "../../src/server/plugin.ts";
import { chatFixture, requestId } from "../support/chat-fixture.ts";
import { waitForState } from "../support/p2-server.ts";

/** A plugin of the test's own: one tool that answers with its argument reversed, and one prompt section. */
const mirrorPlugin: ServerPlugin = {
	name: "mirror",
	register(ctx) {
		ctx.agent.add({
			name: "mirror",
			tools: (scope) => [
				{
					line: "answer with a word reversed",
					tool: {
						name: "mirror",
						label: "mirror",
						description: "Reverses a word.",
						parameters: obj({ word: str() }),
						execute: async (_id: string, args: { word: string }) => ({
							content: [{ type: "text", text: `${[...args.word].reverse().join("")} in ${scope.session}` }],
							details: {},
						}),
					},
				},
			],
			prompt: () => "<mirror_rules>\nReverse words when asked.\n</mirror_rules>",
		});
	},
};

const fixture = chatFixture({ plugins: (defaults) => [...defaults, mirrorPlugin] });

interface FakeRequest {
	messages: { role: string; content: unknown }[];
	tools?: { function: { name: string } }[];
}

describe("what plugins add to the agent", () => {
	test("a plugin's tool is offered, listed in the system prompt with its line, and runs; its section is in the prompt", async () => {
		const { server, chat, session } = await fixture.openChat();
		server.fake.enqueue({ toolCalls: [{ name: "mirror", args: { word: "abc" } }] }, { text: "Done." });
		await chat.call("send", { text: "mirror abc", mode: "steer", requestId: requestId() });
		const state = await waitForState(chat, (s) => s.live === null && s.entries.some((e) => e.kind === "tool"));
		const tool = state.entries.find((e) => e.kind === "tool");
		expect(tool?.kind === "tool" && tool.result.text).toBe(`cba in ${session}`);
		const first = server.fake.requests[0] as FakeRequest;
		expect(first.tools?.map((t) => t.function.name)).toEqual([
			"read",
			"bash",
			"edit",
			"write",
			"subagent",
			"send_file",
			"artifact",
			"mirror",
		]);
		const system = String(first.messages[0]?.content);
		expect(system).toContain("- mirror: answer with a word reversed");
		const rules = system.indexOf("<mirror_rules>");
		expect(rules).toBeGreaterThan(system.indexOf("<rules>"));
		expect(rules).toBeLessThan(system.indexOf("<cwd>"));
	});
});

/** A plugin of the test's own with a say in each message: `!no` is refused, `keep:` kept, others get context. */
const gatePlugin: ServerPlugin = {
	name: "gate",
	register(ctx) {
		ctx.agent.add({
			name: "gate",
			input: (_scope, input) => {
				if (input.text.startsWith("!no")) return { refuse: "not this one" };
				if (input.text.startsWith("keep:")) {
					return { keep: { type: "gate.note", data: { said: input.text, by: input.author.name } } };
				}
				return { context: `context for ${input.author.name}`, lead: "a lead line" };
			},
		});
	},
};

const gated = chatFixture({ plugins: (defaults) => [...defaults, gatePlugin] });

describe("a plugin's say in each message", () => {
	test("refused: an error and nothing stored; kept: the plugin's entry, no run; otherwise the model reads its context", async () => {
		const { server, chat } = await gated.openChat();
		await expect(chat.call("send", { text: "!no way", mode: "steer", requestId: requestId() })).rejects.toMatchObject({
			code: "conflict",
			message: "not this one",
		});
		expect(await chat.call("send", { text: "keep: this", mode: "steer", requestId: requestId() })).toEqual({
			status: "kept",
		});
		const kept = await waitForState(chat, (s) => s.entries.some((e) => e.kind === "plugin"));
		expect(kept.entries).toHaveLength(1);
		expect(kept.entries[0]).toMatchObject({
			kind: "plugin",
			type: "gate.note",
			data: { said: "keep: this", by: "owner" },
			author: { role: "deviceOwner" },
		});
		expect(server.fake.requests).toHaveLength(0);

		server.fake.enqueue({ text: "ok" });
		expect(await chat.call("send", { text: "run", mode: "steer", requestId: requestId() })).toEqual({
			status: "started",
		});
		const ran = await waitForState(chat, (s) => s.live === null && s.entries.some((e) => e.kind === "assistant"));
		expect(ran.entries.find((e) => e.kind === "user")).toMatchObject({ text: "run", lead: "a lead line" });
		const asked = (server.fake.requests[0] as FakeRequest).messages;
		// The model reads the context before the text, and never the plugin's kept entry.
		expect(asked.at(-1)?.content).toBe("context for owner\n\nrun");
		expect(JSON.stringify(asked)).not.toContain("keep: this");
	});
});
