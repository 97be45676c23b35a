/**
 * The panel's terminal emulator inside the real sandbox (ses lockdown, a Compartment), as the UI bundle carries
 * it: evaluated there at first use, it draws a hostile program's output as it does outside.
 */
import { expect, test } from "bun:test";
import { join } from "node:path";
import { runGuestEntry } from "../../support/guest-entry-run.ts";
import { drawHostile } from "./hostile-output.ts";

test("the emulator runs under lockdown and draws what it draws outside", async () => {
	const logs = await runGuestEntry(join(import.meta.dir, "sandbox-entry.ts"));
	const { lines, modes } = await drawHostile();
	expect(logs).toEqual([
		...lines.map((line) => `line ${JSON.stringify(line)}`),
		`modes ${JSON.stringify(modes)}`,
		"done",
	]);
	expect(logs.join("\n")).toContain("wide 日本 done");
}, 60_000);
