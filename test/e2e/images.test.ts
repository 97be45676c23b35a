/**
 * Issue 39 end to end: the read tool on a picture, in a real pseudo-terminal. In kitty the launcher writes the
 * image itself (its own PNG, placed under the tool's card); elsewhere the card shows pi's placeholder.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stopDeviceServer } from "../support/device-server.ts";
import { type FakeHome, fakeHome, MAIN } from "../support/fake-home.ts";
import { png } from "../support/png.ts";
import { type PtyRun, runInPty } from "../support/pty.ts";

let h: FakeHome;
let project: string;

beforeAll(async () => {
	h = await fakeHome("p2-images-");
	project = join(h.home, "proj");
	mkdirSync(project);
	writeFileSync(join(project, "shot.png"), png(90, 45));
});
afterAll(async () => {
	await stopDeviceServer(h.env.P2_DATA_DIR!);
	h.remove();
});

const runs: PtyRun[] = [];
afterEach(async () => {
	for (const run of runs.splice(0)) {
		run.kill();
		await run.exited;
	}
});

function start(env: Record<string, string>, args: string[] = []): PtyRun {
	const run = runInPty([process.execPath, MAIN, ...args], {
		env: { ...h.env, ...env },
		cwd: project,
		cols: 100,
		rows: 40,
	});
	runs.push(run);
	return run;
}

async function readThePicture(run: PtyRun): Promise<void> {
	await run.waitFor((s) => s.includes("fake-model"), "pi's screen with the footer");
	h.fake.enqueue({ toolCalls: [{ name: "read", args: { path: "shot.png" } }] }, { text: "A grey picture." });
	run.type("what is in shot.png?\r");
	await run.waitFor(
		(s) => s.includes("A grey picture.") && s.includes("read shot.png"),
		"the read card and the answer",
	);
}

describe("images in the transcript", () => {
	test("kitty: the launcher sends its own PNG and places it under the read card; the screen's text holds no placeholder", async () => {
		const run = start({ TERM_PROGRAM: "kitty" });
		await readThePicture(run);
		await run.waitForOutput("\x1b_Ga=p,", 0, "the launcher's placement");
		const raw = run.raw();
		const chunks = [...raw.matchAll(/\x1b_G(a=t[^;]*|m=[01]);([A-Za-z0-9+/=]*)\x1b\\/g)];
		expect(chunks.filter((m) => m[1]!.startsWith("a=t,f=100"))).toHaveLength(1);
		const sent = Buffer.from(chunks.map((m) => m[2]).join(""), "base64");
		expect(await new Bun.Image(sent).metadata()).toEqual({ width: 90, height: 45, format: "png" });
		// As pi's Image: scaled to terminal.imageWidthCells (60) at its 9×18 px cells, 60 columns and 15 rows.
		const place = /\x1b\[(\d+);(\d+)H\x1b_Ga=p,q=2,i=(\d+),c=(\d+),r=(\d+),C=1\x1b\\/.exec(raw);
		expect(place?.slice(4, 6)).toEqual(["60", "15"]);
		// Where it stands: under the read card, a blank row after it.
		const screen = run.screen();
		const cardRow = screen.findIndex((line) => line.includes("read shot.png"));
		expect(Number(place![1]) - 1).toBeGreaterThan(cardRow);
		expect(screen.slice(Number(place![1]) - 1, Number(place![1]) + 2).every((line) => line.trim() === "")).toBe(true);
		expect(screen.join("\n")).not.toContain("[Image:");
	}, 60_000);

	test("a terminal without images (tmux): pi's placeholder in the expanded card, and no graphics at all", async () => {
		const run = start({ TMUX: "/tmp/tmux-1/default,1,0", TERM_PROGRAM: "kitty" });
		await readThePicture(run);
		run.type("\x0f");
		await run.waitFor((s) => s.includes("[Image: [image/png] 90x45]"), "pi's placeholder");
		expect(run.screen().join("\n")).toContain("Read image file [image/png]");
		expect(run.raw()).not.toContain("\x1b_G");
	}, 60_000);

	test("kitty with the regular renderer: pi's placeholder (the scrollback has no rows to place images at)", async () => {
		const regular = start({ TERM_PROGRAM: "kitty" }, ["--tui-mode", "regular"]);
		await readThePicture(regular);
		regular.type("\x0f");
		await regular.waitFor((s) => s.includes("[Image: [image/png] 90x45]"), "pi's placeholder");
		expect(regular.raw()).not.toContain("\x1b_G");
	}, 60_000);
});
