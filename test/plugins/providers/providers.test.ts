import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { providersContract } from "../../../src/plugins/providers/contract.ts";
import { LOG_DIR, LOG_FILE } from "../../../src/server/log.ts";
import { startTestServer, type TestServer, waitForState } from "../../support/p2-server.ts";

let ts: TestServer | undefined;
afterEach(async () => {
	await ts?.stop();
	ts = undefined;
});

const ENV_KEY = "sk-env-key-never-shown-12345";

describe("/providers on the server", () => {
	test("each provider's state: models.json's, a key from the environment, a stored account with its expiry, none", async () => {
		ts = await startTestServer({ env: { OPENAI_API_KEY: ENV_KEY } });
		const expires = Date.now() + 3 * 60 * 60 * 1000;
		writeFileSync(
			join(ts.dataDir, "auth.json"),
			JSON.stringify({ anthropic: { type: "oauth", access: "access-secret", refresh: "refresh-secret", expires } }),
			{ mode: 0o600 },
		);
		const owner = await ts.connect();
		const providers = await owner.open(providersContract, {});
		await providers.call("refresh", {});
		const state = await waitForState(providers, (s) => s.providers.some((p) => p.auth === "oauth"));
		const row = (id: string) => state.providers.find((p) => p.id === id);
		expect(row("fake")).toMatchObject({ custom: true, auth: "config", models: 1, failing: null });
		expect(row("openai")).toMatchObject({ custom: false, auth: "env", source: "OPENAI_API_KEY", expires: null });
		expect(row("anthropic")).toMatchObject({ custom: false, auth: "oauth", expires, source: null });
		expect(row("google")).toMatchObject({ auth: null });
		expect(row("google")?.models).toBeGreaterThan(0);
		// Signed in first.
		const firstNone = state.providers.findIndex((p) => p.auth === null);
		expect(state.providers.slice(firstNone).every((p) => p.auth === null)).toBe(true);
		const sent = JSON.stringify(state);
		for (const secret of [ENV_KEY, "access-secret", "refresh-secret", "test-key"]) expect(sent).not.toContain(secret);
	});

	test("a key from the server's environment never reaches its log", async () => {
		// Shaped like no known key: only knowing it was given as a key keeps it out.
		const plain = "plainvalue987654";
		ts = await startTestServer({ env: { SOME_SERVICE_TOKEN: plain } });
		ts.server.ctx.log.warn("server", `something printed ${plain} by mistake`);
		const written = readFileSync(join(ts.dataDir, LOG_DIR, LOG_FILE), "utf8");
		expect(written).toContain("something printed [redacted] by mistake");
		expect(written).not.toContain(plain);
	});
});
