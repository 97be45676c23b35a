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
