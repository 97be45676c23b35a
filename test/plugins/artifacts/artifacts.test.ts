import { describe, expect, test } from "bun:test";
import { artifactsContract } from "../../../src/plugins/artifacts/contract.ts";
import { DEVICE_TOKEN_HEADER } from "../../../src/protocol/server-info.ts";
import { chatFixture, requestId } from "../../support/chat-fixture.ts";
import { joinAsGuest } from "../../support/guests.ts";
import { connectClient, waitForState } from "../../support/p2-server.ts";

const fixture = chatFixture();

describe("the artifact tool", () => {
	test("the agent saves a named document; again is a new version; listed live and read inline; served on the fixed route", async () => {
		const { server, owner, chat, session } = await fixture.openChat();
		const artifacts = await owner.open(artifactsContract, { session });
		expect(artifacts.state?.artifacts).toEqual([]);
		server.fake.enqueue(
			{ toolCalls: [{ name: "artifact", args: { name: "plan.md", content: "# Plan\n\n- one\n" } }] },
			{ toolCalls: [{ name: "artifact", args: { name: "plan.md", content: "# Plan\n\n- one\n- two\n" } }] },
			{ toolCalls: [{ name: "artifact", args: { name: "../escape", content: "x" } }] },
			{ text: "Done." },
		);
		await chat.call("send", { text: "write the plan", mode: "steer", requestId: requestId() });
		const state = await waitForState(
			chat,
			(s) => s.live === null && s.entries.filter((e) => e.kind === "tool").length === 3,
		);
		const tools = state.entries.filter((e) => e.kind === "tool");
		expect(tools.map((t) => t.kind === "tool" && t.result.text)).toEqual([
			"Saved plan.md (version 1, 14 bytes).",
			"Saved plan.md (version 2, 20 bytes).",
			expect.stringContaining("name: 1 to 100"),
		]);
		const listed = await waitForState(artifacts, (s) => s.artifacts[0]?.version === 2);
		expect(listed.artifacts).toMatchObject([{ name: "plan.md", version: 2, kind: "markdown", size: 20 }]);
		expect(await artifacts.call("read", { name: "plan.md", version: 1 })).toEqual({
			name: "plan.md",
			version: 1,
			kind: "markdown",
			text: "# Plan\n\n- one\n",
			truncated: false,
		});
		expect((await artifacts.call("read", { name: "plan.md" })).version).toBe(2);
		await expect(artifacts.call("read", { name: "plan.md", version: 3 })).rejects.toMatchObject({ code: "not_found" });

		// A view guest may see and read them: they are part of what the session shows.
		const viewer = await connectClient(server.server, {
			cookie: await joinAsGuest(server.server, owner, session, "view"),
		});
		try {
			const seen = await viewer.open(artifactsContract, { session });
			expect((await seen.call("read", { name: "plan.md" })).text).toContain("- two");
		} finally {
			viewer.close();
		}

		const get = (query: string, headers: Record<string, string> = {}) =>
			fetch(`${server.server.origin}/artifact?${query}`, {
				headers: { [DEVICE_TOKEN_HEADER]: server.server.deviceToken, ...headers },
			});
		const ok = await get(`session=${session}&name=plan.md&version=1`);
		expect(ok.status).toBe(200);
		expect(await ok.text()).toBe("# Plan\n\n- one\n");
		expect(ok.headers.get("content-security-policy")).toContain("sandbox");
		const download = await get(`session=${session}&name=plan.md&download=1`);
		expect(download.headers.get("content-type")).toBe("application/octet-stream");
		expect(await download.text()).toContain("- two");
		expect((await get(`session=${session}&name=plan.md`, { origin: "https://evil.example" })).status).toBe(403);
		expect((await get(`session=${session}&name=nope.md`)).status).toBe(404);
		expect((await fetch(`${server.server.origin}/artifact?session=${session}&name=plan.md`)).status).toBe(401);
	});
});
