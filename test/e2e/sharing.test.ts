import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type FakeHome, fakeHome, MAIN } from "../support/fake-home.ts";
import { type PtyRun, runInPty } from "../support/pty.ts";

let owner: FakeHome;
let guest: FakeHome;
beforeAll(async () => {
	owner = await fakeHome("p2-share-owner-");
	guest = await fakeHome("p2-share-guest-");
});
afterAll(async () => {
	await owner.remove();
	await guest.remove();
});

const DOWN = "\x1b[B";

/** The share sheet's title line (the command list's "Share this session: …" is not it). */
const SHEET = /^ Share this session\s*$/m;

/** Opens /share on the owner's screen and moves the cursor `down` rows, onto the row that starts with `row`. */
async function openShare(run: PtyRun, down = 0, row = "View-only link") {
	run.type("/share");
	await run.waitFor((s) => s.includes("→ share"), "/share in the command list");
	run.type("\r");
	await run.waitFor((s) => SHEET.test(s), "the share sheet");
	for (let i = 0; i < down; i++) run.type(DOWN);
	await run.waitFor((s) => s.includes(`→ ${row}`), `the cursor on ${row}`);
}

async function closeShare(run: PtyRun) {
	run.type("\x1b");
	await run.waitFor((s) => !SHEET.test(s), "the share sheet to close");
}

describe("sharing end to end: an owner and a --join guest, each with their own launcher and HOME", () => {
	test("view, promote, attribution, approval, demote mid-stream, reset", async () => {
		const own = runInPty([process.execPath, MAIN], { env: owner.env, cwd: owner.home, cols: 120, rows: 40 });
		let visitor: PtyRun | undefined;
		const guestScreens: string[] = [];
		const watch = setInterval(() => visitor && guestScreens.push(visitor.screen().join("\n")), 25);
		try {
			await own.waitFor((s) => s.includes("fake-model"), "the owner's chat");
			// The link is shown only on the owner's launcher screen, when it asks before copying.
			await openShare(own);
			own.type("\r");
			await own.waitFor((s) => /\/join\/[A-Za-z0-9_-]{43}/.test(s), "the copy question with the link");
			const link = /(http:\/\/127\.0\.0\.1:\d+\/join\/[A-Za-z0-9_-]{43})/.exec(own.screen().join("\n"))?.[1];
			expect(link).toBeDefined();
			own.type("n");
			await own.waitFor((s) => SHEET.test(s) && !/\/join\//.test(s), "back on the share sheet");
			await closeShare(own);

			visitor = runInPty([process.execPath, MAIN, "--join", link!], {
				env: guest.env,
				cwd: guest.home,
				cols: 120,
				rows: 40,
			});
			const g = visitor;
			await g.waitFor((s) => s.includes("Your name in this session"), "the name prompt");
			g.type("Ana\r");
			await g.waitFor((s) => s.includes("guest · Ana (unverified) · view only"), "the guest header");
			await g.waitFor((s) => s.includes("Joined as Ana (unverified) · read-only"), "the read-only bar");
			await own.waitFor((s) => s.includes("guest here: Ana (view)"), "presence in the owner's footer");
			await own.waitFor((s) => s.includes("Ana (unverified) joined · view only"), "the owner told who joined");

			// The owner's answer streams to the guest as it is written.
			owner.fake.enqueue({ text: "Streaming to everyone who watches this session", chunks: 8, chunkDelayMs: 150 });
			own.type("what do you say\r");
			await g.waitFor((s) => s.includes("what do you say") && s.includes("Streaming"), "the answer on the guest");
			await g.waitFor((s) => s.includes("watches this session"), "the whole answer on the guest");

			// A view guest has no editor: typing sends nothing. Ctrl+O's notice after it shows the typing was taken
			// (and not left for the editor that comes with full access); the guest's next message, sent after it on
			// the same connection, shows nothing came before.
			g.type("sneaky\r");
			g.type("\x0f");
			await g.waitFor((s) => s.includes("Tool output: expanded"), "Ctrl+O taken after the typing");
			g.type("\x0f");
			await g.waitFor((s) => s.includes("Tool output: collapsed"), "Ctrl+O again");

			// Promoted live: the editor appears, and the message carries the guest's name on the owner's side.
			await openShare(own, 4, "Ana (unverified)");
			own.type("\t");
			await g.waitFor((s) => s.includes("guest · Ana (unverified) · full access"), "full access on the guest");
			await g.waitFor((s) => s.includes("The owner gave you full access"), "the guest told");
			await closeShare(own);
			await g.waitFor((s) => !s.includes("read-only"), "the editor back");
			owner.fake.enqueue({ text: "Hello Ana" });
			g.type("hello from ana\r");
			await own.waitFor((s) => s.includes("Ana (unverified): hello from ana"), "the attributed message");
			await own.waitFor((s) => s.includes("Hello Ana"), "the answer");
			expect(own.screen().join("\n")).not.toContain("sneaky");
			expect(JSON.stringify(owner.fake.requests)).not.toContain("sneaky");

			// Ports: a full guest may forward one to their computer only once the owner allows it in /share.
			const web = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("hello, Ana") });
			try {
				g.type("/ports");
				await g.waitFor((s) => s.includes("→ ports"), "/ports in the guest's command list");
				g.type("\r");
				await g.waitFor((s) => s.includes("the owner has not let guests open this session's ports"), "refused");
				await openShare(own, 3, "Guests may open ports on their computer: off");
				own.type("\r");
				await own.waitFor((s) => s.includes("Full guests will reach ports listening on"), "the owner asked");
				own.type("y");
				await own.waitFor((s) => s.includes("Guests may open ports on their computer: on"), "allowed");
				g.type("/ports");
				await g.waitFor((s) => s.includes("→ ports"), "/ports in the guest's command list");
				g.type("\r");
				g.type(String(web.port));
				await g.waitFor((s) => s.includes(`→ ${web.port} on 127.0.0.1`), "the port on the guest's list");
				g.type("\r");
				await g.waitFor((s) => s.includes("Enter or y: confirm"), "the guest's launcher asks");
				g.type("y");
				const opened = /at http:\/\/(127\.0\.0\.1:\d+) until p2 exits/;
				await g.waitFor((s) => opened.test(s.replace(/\s+/g, " ")), "open on the guest's computer");
				const address = opened.exec(g.screen().join(" ").replace(/\s+/g, " "))?.[1];
				expect(await (await fetch(`http://${address}/`)).text()).toBe("hello, Ana");
				g.type("\x1b");
				own.type("\r");
				await own.waitFor((s) => s.includes("Guests may open ports on their computer: off"), "stopped");
				await closeShare(own);
				await expect(fetch(`http://${address}/`)).rejects.toThrow();
			} finally {
				web.stop(true);
			}

			// Sessions, models, sign-in and sharing are the owner's: a guest gets a line saying so, never a catalog.
			const ownerOnly: [string, string][] = [
				["/resume", "Only the owner can browse sessions"],
				["/model", "The session's owner chooses the model"],
				["/login", "The server's owner signs it in to model providers"],
				["/new", "Only the owner can start sessions"],
				["/name other", "Only the owner can rename this session"],
				["/share", "Only the owner can share this session"],
			];
			for (const [command, line] of ownerOnly) {
				g.type(command);
				await g.waitFor((s) => s.split("\n").some((l) => l.trimEnd() === command), `${command} typed`);
				g.type("\r");
				await g.waitFor((s) => s.includes(line), `${command} refused on the guest`);
				g.type("\x15");
			}

			// Approval mode: the guest's message waits, marked, until the owner accepts it.
			await openShare(own, 2, "Approve guests' messages");
			own.type("\r");
			await own.waitFor((s) => s.includes("Approve guests' messages: on"), "approval on");
			g.type("may I\r");
			await g.waitFor((s) => s.includes("Waiting for approval: may I"), "the guest sees it waiting");
			await own.waitFor((s) => s.includes("Ana: may I"), "the waiting message on the share sheet");
			expect(owner.fake.requests.length).toBe(2);
			owner.fake.enqueue({ hang: true });
			for (let i = 0; i < 3; i++) own.type(DOWN);
			await own.waitFor((s) => /→ .*Ana: may I/.test(s), "the cursor on the waiting message");
			own.type("\r");
			await own.waitFor((s) => s.includes("Ana (unverified): may I"), "the accepted message in the transcript");
			await owner.fake.waitForRequest(3);

			// Demoted mid-stream: the guest loses the editor while the run goes on. (The accepted message left the
			// list, so the cursor is on the guest again.)
			await own.waitFor((s) => !s.includes("Ana: may I"), "the waiting row gone");
			own.type("\t");
			await g.waitFor((s) => s.includes("guest · Ana (unverified) · view only"), "view only again");
			await g.waitFor((s) => s.includes("Joined as Ana (unverified) · read-only"), "the read-only bar again");
			await closeShare(own);
			own.type("\x1b");
			await own.waitFor((s) => s.includes("Operation aborted"), "the hanging run stopped");

			// A reset ends the old link: the guest's launcher says so and asks for a new one.
			await openShare(own);
			own.type("\x12");
			await own.waitFor((s) => s.includes("Reset this link?"), "the reset question");
			own.type("y");
			await own.waitFor((s) => /\/join\/[A-Za-z0-9_-]{43}/.test(s), "the new link to copy");
			expect(own.screen().join("\n")).not.toContain(link!);
			own.type("n");
			await g.waitFor((s) => s.includes("This share has ended."), "the ended share");
			await g.waitFor((s) => s.includes("Paste a new share link to join again"), "the prompt for a new link");
			g.type("\r");
			expect(await g.exited).toBe(1);

			// The guest's launcher holds its own guest cookie and nothing of the owner's.
			const deviceToken = JSON.parse(readFileSync(join(owner.data, "server.json"), "utf8")).deviceToken as string;
			const config = readFileSync(join(guest.home, ".pi", "p2-tui", "config.json"), "utf8");
			expect(config).not.toContain(deviceToken);
			const origins = Object.values(JSON.parse(config).origins) as Record<string, unknown>[];
			for (const o of origins) expect(Object.keys(o)).not.toContain("cookie");
			for (const screen of guestScreens) expect(screen).not.toContain(deviceToken);
		} finally {
			clearInterval(watch);
			visitor?.kill();
			own.kill();
			await Promise.all([own.exited, visitor?.exited]);
		}
	}, 90_000);
});
