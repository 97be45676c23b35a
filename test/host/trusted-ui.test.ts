import { describe, expect, test } from "bun:test";
import { CONFIRM_AFTER_MS, ConsentScreen } from "../../src/host/trusted-ui.ts";

const request = { origin: "https://p2.example", action: "Copy", facts: [], preview: ["text"] };
const size = () => ({ columns: 80, rows: 24 });

describe("the consent screen", () => {
	test("a question nobody answers is withdrawn when it expires, and a late yes decides nothing", async () => {
		const out: string[] = [];
		const screen = new ConsentScreen((d) => out.push(d), size, { expiresAfterMs: 30 });
		const answer = await screen.confirm(request);
		expect(answer).toBe("withdrawn");
		expect(screen.active).toBe(false);
		screen.input("y");
		expect(screen.active).toBe(false);
	});

	test("an answer in time is the person's, and its expiry does not reach the next question", async () => {
		const expiresAfterMs = 2000;
		const screen = new ConsentScreen(() => {}, size, { expiresAfterMs });
		const answer = screen.confirm(request);
		await Bun.sleep(Math.max(CONFIRM_AFTER_MS + 100, 1000));
		screen.input("y");
		expect(await answer).toBe("yes");
		// The next question has its own time: the answered one's expiry (due about 1 s from now) must not
		// withdraw it, and its own is not due for 2 s; looking halfway between leaves half a second either way.
		void screen.confirm(request);
		await Bun.sleep(1500);
		expect(screen.active).toBe(true);
		screen.cancel();
	});
});
