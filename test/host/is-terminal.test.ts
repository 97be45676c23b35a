import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { runInPty } from "../support/pty.ts";

const SRC = join(import.meta.dir, "..", "..", "src");
const PROBE = `import { onTerminal } from ${JSON.stringify(join(SRC, "host", "is-terminal.ts"))};
process.stdout.write(onTerminal() ? "on a terminal\\n" : "not on a terminal\\n");`;

describe("whether p2 runs on a terminal", () => {
	test("a pseudo-terminal is one", async () => {
		const run = runInPty([process.execPath, "-e", PROBE], { env: { PATH: process.env.PATH ?? "" } });
		await run.waitFor((s) => s.includes("on a terminal"), "the answer");
		expect(run.screen().join("\n")).not.toContain("not on a terminal");
		await run.exited;
	});

	test("pipes are not, and p2 says it needs a terminal without starting anything", async () => {
		const probe = Bun.spawn([process.execPath, "-e", PROBE], { stdin: "pipe", stdout: "pipe" });
		probe.stdin.end();
		expect(await new Response(probe.stdout).text()).toBe("not on a terminal\n");
		const p2 = Bun.spawn([process.execPath, join(SRC, "main.ts")], {
			stdin: "pipe",
			stdout: "pipe",
			stderr: "pipe",
			env: { PATH: process.env.PATH ?? "", HOME: "/nonexistent", P2_DATA_DIR: "/nonexistent/p2" },
		});
		p2.stdin.end();
		expect(await p2.exited).toBe(2);
		expect(await new Response(p2.stderr).text()).toContain("p2: needs a terminal");
	});
});
