import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EnvName as EnvsEnvName } from "../../src/plugins/envs/contract.ts";
import { EnvName as SessionsEnvName } from "../../src/plugins/sessions/contract.ts";
import { type } from "../../src/protocol/ark.ts";
import { readEnvsConfig } from "../../src/server/env/config.ts";

const NAMES = ["gpu", "g1", "box.lan", "a-b_c", "x", "C", "-gpu", ".hidden", "a".repeat(32), "a".repeat(33), "gpu box"];

/** Whether envs.json takes the name for an environment. */
function configTakes(name: string): boolean {
	const dir = mkdtempSync(join(tmpdir(), "p2-env-name-"));
	try {
		writeFileSync(join(dir, "envs.json"), JSON.stringify({ environments: [{ name, host: "example.org" }] }));
		return readEnvsConfig(dir).environments.length === 1;
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

describe("an environment's name", () => {
	test("envs.json and every contract take the same names: never one letter, which reads as a Windows drive", () => {
		const taken = NAMES.filter(configTakes);
		expect(taken).toEqual(["gpu", "g1", "box.lan", "a-b_c", "a".repeat(32)]);
		for (const schema of [EnvsEnvName, SessionsEnvName]) {
			expect(NAMES.filter((name) => !(schema(name) instanceof type.errors))).toEqual(taken);
		}
	});
});
