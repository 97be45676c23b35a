import { expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LauncherConfig } from "../../src/host/config.ts";
import { rememberLastSession } from "../../src/launch.ts";

test("a UI that navigates in a loop does not keep the launcher writing its config: the last session is written once", () => {
	const dir = mkdtempSync(join(tmpdir(), "p2-remember-"));
	try {
		const config = new LauncherConfig(dir);
		const remembered = rememberLastSession(config);
		const origin = "https://p2.example";
		for (let i = 0; i < 1000; i++) {
			remembered.note(origin, `00000000-0000-4000-8000-${String(i % 2).padStart(12, "0")}`);
		}
		expect(() => statSync(join(dir, "config.json"))).toThrow();
		remembered.note(origin, "00000000-0000-4000-8000-000000000007");
		remembered.flush();
		const saved = JSON.parse(readFileSync(join(dir, "config.json"), "utf8"));
		expect(saved.origins[origin].lastSession).toBe("00000000-0000-4000-8000-000000000007");
		expect(new LauncherConfig(dir).get(origin).lastSession).toBe("00000000-0000-4000-8000-000000000007");
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
});
