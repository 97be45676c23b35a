import { describe, expect, test } from "bun:test";
import { exitTranscript, resumeHint } from "../../src/host/exit-output.ts";

const SESSION = "0a0a0a0a-0000-4000-8000-000000000001";

describe("what p2 leaves on the terminal when the UI exits", () => {
	test("the UI's transcript keeps its colors and shows every other control as a visible character", () => {
		const text = "\x1b[1mbold\x1b[22m plain\n\x1b]52;c;c2VjcmV0\x07clip \x1b[2J\x1b[Hhome\x1b[6n\r\x07end";
		const out = exitTranscript(text);
		expect(out).toContain("\x1b[1mbold\x1b[22m plain\x1b[0m\n");
		// Nothing reaches the terminal as a control: no OSC, no erase, no cursor move, no query, no carriage return.
		const controls = out.replace(/\x1b\[[0-9;:]*m/g, "").replace(/\n/g, "");
		expect(/[\x00-\x1f\x7f-\x9f]/.test(controls)).toBe(false);
		expect(out).toContain("␛]52;c;c2VjcmV0␇clip ␛[2J␛[Hhome␛[6n␍␇end");
		expect(exitTranscript("")).toBe("");
	});

	test("the resume hint names this server's command: no origin for this device's, the origin for another", () => {
		const device = resumeHint({ kind: "device", origin: () => "http://127.0.0.1:4000" }, SESSION);
		expect(device).toBe(`\x1b[2mTo resume this session:\x1b[22m\np2 --session ${SESSION}\n`);
		const remote = resumeHint({ kind: "owner", origin: () => "https://p2.example" }, SESSION);
		expect(remote).toContain(`p2 https://p2.example --session ${SESSION}\n`);
		expect(resumeHint({ kind: "device", origin: () => "" }, "../../etc/passwd")).toBe("");
	});
});
