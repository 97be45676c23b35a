import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FilePicker } from "../../src/host/file-picker.ts";

let dir = "";
afterEach(() => {
	if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("the launcher's file picker", () => {
	test("directories first, typing filters, Enter opens or picks, Backspace goes up, Escape cancels", async () => {
		dir = mkdtempSync(join(tmpdir(), "p2-picker-"));
		mkdirSync(join(dir, "docs"));
		writeFileSync(join(dir, "docs", "plan.md"), "x");
		writeFileSync(join(dir, "zeta.txt"), "x");
		writeFileSync(join(dir, "alpha.txt"), "x");
		let screen = "";
		const picker = new FilePicker(
			(data) => {
				screen = data;
			},
			() => ({ columns: 100, rows: 30 }),
		);
		const chosen = picker.pick(dir);
		expect(screen).toContain("not the server's screen");
		expect(screen.indexOf("docs/")).toBeLessThan(screen.indexOf("alpha.txt"));
		expect(screen.indexOf("alpha.txt")).toBeLessThan(screen.indexOf("zeta.txt"));
		picker.input("\r"); // into docs/
		expect(screen).toContain(`In: ${join(dir, "docs")}`);
		picker.input("\x7f"); // back up
		expect(screen).toContain(`In: ${dir}`);
		for (const c of "zet") picker.input(c);
		expect(screen).not.toContain("alpha.txt");
		picker.input("\r");
		expect(await chosen).toBe(join(dir, "zeta.txt"));
		const cancelled = picker.pick(dir);
		picker.input("\x1b");
		expect(await cancelled).toBeUndefined();
		expect(picker.active).toBe(false);
	});
});
