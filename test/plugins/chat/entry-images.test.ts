import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { MAX_IMAGE_BYTES } from "../../../src/protocol/channel-kinds.ts";
import { chatFixture, requestId } from "../../support/chat-fixture.ts";
import { waitForState } from "../../support/p2-server.ts";
import { png } from "../../support/png.ts";

const fixture = chatFixture();

describe("a tool's images in the transcript", () => {
	test("the entry names each image's type and size; `image` gives it as a PNG the launcher takes, scaled down", async () => {
		const { server, chat, cwd } = await fixture.openChat();
		writeFileSync(join(cwd, "small.png"), png(40, 20));
		// A large photo-like picture: its copy for the terminal is at most 1024 pixels a side.
		const big = await new Bun.Image(png(3000, 1500)).jpeg().bytes();
		writeFileSync(join(cwd, "big.jpg"), big);
		server.fake.enqueue(
			{ toolCalls: [{ name: "read", args: { path: "small.png" } }] },
			{ toolCalls: [{ name: "read", args: { path: "big.jpg" } }] },
			{ text: "Seen." },
		);
		await chat.call("send", { text: "look", mode: "steer", requestId: requestId() });
		const state = await waitForState(
			chat,
			(s) => s.live === null && s.entries.filter((e) => e.kind === "tool").length === 2,
		);
		const tools = state.entries.flatMap((e) => (e.kind === "tool" ? [e] : []));
		expect(tools.map((t) => t.result.images)).toEqual([
			[{ mimeType: "image/png", width: 40, height: 20 }],
			[{ mimeType: "image/jpeg", width: 3000, height: 1500 }],
		]);
		const small = await chat.call("image", { seq: tools[0]!.seq, index: 0 });
		expect(await new Bun.Image(Buffer.from(small.png, "base64")).metadata()).toEqual({
			width: 40,
			height: 20,
			format: "png",
		});
		const large = await chat.call("image", { seq: tools[1]!.seq, index: 0 });
		expect(Buffer.from(large.png, "base64").length).toBeLessThanOrEqual(MAX_IMAGE_BYTES);
		expect(await new Bun.Image(Buffer.from(large.png, "base64")).metadata()).toEqual({
			width: 1024,
			height: 512,
			format: "png",
		});
		// No such image: a clear refusal.
		await expect(chat.call("image", { seq: tools[0]!.seq, index: 1 })).rejects.toThrow("no such image");
		const user = state.entries.find((e) => e.kind === "user")!;
		await expect(chat.call("image", { seq: user.seq, index: 0 })).rejects.toThrow("no such image");
	});
});
