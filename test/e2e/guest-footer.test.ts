import { afterAll, beforeAll, describe, test } from "bun:test";
import { type FakeHome, fakeHome, MAIN } from "../support/fake-home.ts";
import { type PtyRun, runInPty } from "../support/pty.ts";

let owner: FakeHome;
let guest: FakeHome;
beforeAll(async () => {
	owner = await fakeHome("p2-guest-footer-owner-");
	guest = await fakeHome("p2-guest-footer-guest-");
});
afterAll(async () => {
	await owner.remove();
	await guest.remove();
});

describe("a view-only guest's footer", () => {
	test("shows the conversation's model and context as soon as the guest joins, without a new answer", async () => {
		const own = runInPty([process.execPath, MAIN], { env: owner.env, cwd: owner.home, cols: 120, rows: 40 });
		let visitor: PtyRun | undefined;
		try {
			await own.waitFor((s) => s.includes("fake-model"), "the owner's chat");
			owner.fake.enqueue({ text: "Before the guest came.", usage: { prompt: 12800, completion: 20 } });
			own.type("hello\r");
			await own.waitFor((s) => s.includes("Before the guest came."), "an answer");
			await own.waitFor((s) => s.includes("10.0%/128k"), "the owner's context");
			own.type("/share");
			await own.waitFor((s) => s.includes("Share this session"), "the command in the list");
			own.type("\r");
			await own.waitFor((s) => s.includes("Share this session") && !s.includes("/share"), "the share sheet");
			own.type("\r");
			await own.waitFor((s) => /\/join\/[A-Za-z0-9_-]{43}/.test(s), "the link, on the launcher's question");
			const link = /(http:\/\/127\.0\.0\.1:\d+\/join\/[A-Za-z0-9_-]{43})/.exec(own.screen().join("\n"))?.[1] ?? "";
			own.type("n");

			visitor = runInPty([process.execPath, MAIN, "--join", link], {
				env: guest.env,
				cwd: guest.home,
				cols: 120,
				rows: 40,
			});
			const g = visitor;
			await g.waitFor((s) => s.includes("Your name in this session"), "the name prompt");
			g.type("Ana\r");
			await g.waitFor((s) => s.includes("read-only"), "the read-only bar");
			await g.waitFor((s) => /10\.0%\/128k \(auto\) +fake-model • medium$/m.test(s), "the model and the context");
		} finally {
			visitor?.kill();
			own.kill();
			await visitor?.exited;
			await own.exited;
		}
	}, 60_000);
});
