/**
 * The precompiled validators inside the real sandbox (ses lockdown, a Compartment): the bundle's generated
 * code runs there and agrees with arktype, the object client uses it, and a schema called directly throws.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { type } from "../../src/protocol/ark.ts";
import { guestSchemas } from "../../src/server/guest-schemas.ts";
import { runGuestEntry } from "../support/guest-entry-run.ts";
import { corpusFor, VALID, verdictDigest } from "../support/validator-corpus.ts";

describe("precompiled validators in the sandbox", () => {
	test("agree with arktype on the hostile corpora, serve the object client, and a schema itself throws", async () => {
		const lines = await runGuestEntry(join(import.meta.dir, "..", "support", "precompiled-entry.ts"));
		const schemas = await guestSchemas();
		for (const key of Object.keys(VALID)) {
			const schema = schemas.get(key) as (data: unknown) => unknown;
			const expected = verdictDigest(corpusFor(key).map((v) => !(schema(v) instanceof type.errors)));
			expect(lines).toContain(`digest ${key} ${expected}`);
		}
		expect(lines.filter((l) => l.startsWith("problem "))).toEqual([
			"problem chat: snapshot refused: did not match chat@1/state/owner",
			"problem chat: patched state refused: did not match chat@1/state/owner",
		]);
		expect(lines).toContain("state live older=true");
		const called = lines.find((l) => l.startsWith("schema called: "));
		expect(called).toContain("arktype is not in the guest bundle: the schema type({ entries, older, live,");
		expect(called).toContain("has no validator precompiled at build time");
	}, 60_000);
});
