import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type FakeHome, fakeHome, MAIN } from "../support/fake-home.ts";
import { type PtyRun, runInPty } from "../support/pty.ts";

let owner: FakeHome;
let guest: FakeHome;
beforeAll(async () => {
	owner = await fakeHome("p2-chatmode-owner-");
	guest = await fakeHome("p2-chatmode-guest-");
});
afterAll(async () => {
	await owner.remove();
	await guest.remove();
});

const DOWN = "\x1b[B";
const UP = "\x1b[A";
const SHEET = /^ Share this session\s*$/m;

interface FakeRequest {
	messages: { role: string; content: unknown }[];
}

/** The owner makes the full-access link on the share sheet and reads it off the launcher's copy question. */
async function fullLink(own: PtyRun): Promise<string> {
	own.type("/share");
	await own.waitFor((s) => s.includes("→ share"), "/share in the command list");
	own.type("\r");
	await own.waitFor((s) => SHEET.test(s), "the share sheet");
	own.type(DOWN);
	await own.waitFor((s) => s.includes("→ Full-access link"), "the cursor on the full-access link");
	own.type("\r");
	await own.waitFor((s) => s.includes("Make the link?"), "the full-access question");
	own.type("y");
	await own.waitFor((s) => /\/join\/[A-Za-z0-9_-]{43}/.test(s), "the copy question with the link");
	const link = /(http:\/\/127\.0\.0\.1:\d+\/join\/[A-Za-z0-9_-]{43})/.exec(own.screen().join("\n"))?.[1];
	expect(link).toBeDefined();
	own.type("n");
	await own.waitFor((s) => SHEET.test(s) && !/\/join\//.test(s), "back on the share sheet");
	own.type("\x1b");
	await own.waitFor((s) => !SHEET.test(s), "the share sheet closed");
	return link!;
}

describe("chat mode end to end: an owner and a full guest, each with their own launcher", () => {
	test("chat both ways, a mention of @pi from the guest, a reply quote, the chip, and the owner turning it off", async () => {
		const own = runInPty([process.execPath, MAIN], { env: owner.env, cwd: owner.home, cols: 120, rows: 40 });
		let visitor: PtyRun | undefined;
		try {
			await own.waitFor((s) => s.includes("fake-model"), "the owner's chat");
			const link = await fullLink(own);
			visitor = runInPty([process.execPath, MAIN, "--join", link], {
				env: guest.env,
				cwd: guest.home,
				cols: 120,
				rows: 40,
			});
			const g = visitor;
			await g.waitFor((s) => s.includes("Your name in this session"), "the name prompt");
			g.type("Ana\r");
			await g.waitFor((s) => s.includes("guest · Ana (unverified) · full access"), "the guest header");

			// Off, the owner's chip says how to turn it on once someone else is here; the guest has none.
			await own.waitFor((s) => s.includes("[Chat off · /chat-mode]"), "the owner's off chip");
			expect(g.screen().join("\n")).not.toContain("Chat off");

			own.type("/chat-mode\r");
			await own.waitFor((s) => s.includes("Chat mode on (owner)"), "the switch on the owner's transcript");
			await g.waitFor((s) => s.includes("Chat mode on (owner)"), "the switch on the guest's transcript");
			await g.waitFor((s) => s.includes("Chat · 0 waiting for @pi"), "the guest's chip");

			// Chat both ways: nothing runs.
			own.type("wait, don't touch the migration @Ana\r");
			await g.waitFor((s) => s.includes("owner · wait, don't touch the migration @Ana"), "the owner's chat line");
			g.type("ok, I won't\r");
			await own.waitFor((s) => s.includes("Ana (unverified) · ok, I won't"), "the guest's chat line");
			await own.waitFor((s) => s.includes("Chat · 2 waiting for @pi"), "two waiting on the owner's chip");
			expect(owner.fake.requests.length).toBe(0);

			// The guest replies to the owner's line and mentions @pi (offered first by `@`).
			g.type("/reply\r");
			await g.waitFor((s) => s.includes("Reply to Message"), "the reply selector");
			g.type(UP);
			await g.waitFor((s) => s.includes("› wait, don't touch the migration"), "the owner's line selected");
			g.type("\r");
			await g.waitFor(
				(s) => s.includes("↪ Replying to owner: wait, don't touch the migration @Ana"),
				"the quote in the pending area",
			);
			owner.fake.enqueue({ text: "Trying the other approach." });
			g.type("@p");
			await g.waitFor((s) => s.includes("mention pi: the agent answers"), "@pi offered");
			g.type("\t");
			await g.waitFor((s) => s.split("\n").some((l) => l.includes("@pi ") && !l.includes("mention")), "@pi inserted");
			g.type("try the other approach\r");
			await own.waitFor((s) => s.includes("Trying the other approach."), "the agent's answer on the owner");
			await own.waitFor(
				(s) => s.includes("↪ Replying to owner: wait, don't touch the migration @Ana"),
				"the quote above the reply in the owner's transcript",
			);
			await own.waitFor((s) => s.includes("Ana (unverified): @pi try the other approach"), "the mention");
			await g.waitFor((s) => s.includes("Trying the other approach."), "the answer on the guest");
			await own.waitFor((s) => s.includes("Chat · 0 waiting for @pi"), "nothing waits after the run");
			const asked = String((owner.fake.requests[0] as FakeRequest).messages.at(-1)?.content);
			expect(asked).toContain("[owner]: wait, don't touch the migration @Ana");
			expect(asked).toContain("[Ana]: ok, I won't");
			expect(asked).toContain("The message below is from Ana");

			// Off again: everyone sees it; the next message runs the agent.
			own.type("/chat-mode\r");
			await own.waitFor((s) => s.includes("Chat mode off (owner)"), "the switch off on the owner");
			await g.waitFor((s) => s.includes("Chat mode off (owner)"), "the switch off on the guest");
			await own.waitFor((s) => s.includes("[Chat off · /chat-mode]"), "the owner's off chip again");
			await g.waitFor((s) => !s.includes("waiting for @pi"), "the guest's chip gone");
			owner.fake.enqueue({ text: "Running again." });
			g.type("now for real\r");
			await own.waitFor((s) => s.includes("Running again."), "a plain message runs the agent");
		} finally {
			visitor?.kill();
			own.kill();
			await Promise.all([own.exited, visitor?.exited]);
		}
	}, 120_000);
});
