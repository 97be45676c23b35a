/**
 * The precompiled validators inside the real sandbox (ses lockdown, a Compartment): the bundle's generated
 * code runs there and agrees with arktype, the object client uses it, and a schema called directly throws.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { Sandbox } from "../../src/host/sandbox.ts";
import { type } from "../../src/protocol/ark.ts";
import type { WorkerMessage } from "../../src/protocol/channel.ts";
import { buildGuestBundle } from "../../src/server/bundle.ts";
import { guestSchemas } from "../../src/server/guest-schemas.ts";
import { TEST_START } from "../support/start-data.ts";
import { corpusFor, VALID, verdictDigest } from "../support/validator-corpus.ts";
import { waitUntil } from "../support/wait.ts";

describe("precompiled validators in the sandbox", () => {
	test("agree with arktype on the hostile corpora, serve the object client, and a schema itself throws", async () => {
		const bundle = await buildGuestBundle({ entry: join(import.meta.dir, "..", "support", "precompiled-entry.ts") });
		const messages: WorkerMessage[] = [];
		const sandbox = new Sandbox({
			bundle,
			start: TEST_START,
			onMessage: (m) => messages.push(m),
			onProblem: () => {},
			onEnd: () => {},
		});
		const logs = () =>
			messages.flatMap((m) => (m.kind === "log" ? [m.text] : m.kind === "error" ? [`error ${m.message}`] : []));
		try {
			await waitUntil(
				() => logs().includes("done") || logs().some((l) => l.startsWith("error ")),
				"the guest's report",
				30_000,
			);
		} finally {
			sandbox.terminate();
		}
		const lines = logs();
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
