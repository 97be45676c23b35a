import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { normalizeContext } from "@earendil-works/pi-ai/utils/transcript";
import { loginContract } from "../../../src/plugins/login/contract.ts";
import { modelsContract } from "../../../src/plugins/models/contract.ts";
import { keyedProvider, loopbackOAuthProvider, startLoopbackAuthServer } from "../../support/fake-login-providers.ts";
import { startTestServer, type TestServer } from "../../support/p2-server.ts";
import { waitForValue, waitUntil } from "../../support/wait.ts";

const SECRET = "sk-keyed-very-secret-1234";
let ts: TestServer;
let auth: ReturnType<typeof startLoopbackAuthServer>;

beforeAll(async () => {
	auth = startLoopbackAuthServer();
	ts = await startTestServer({
		providers: (baseUrl) => [keyedProvider(baseUrl), loopbackOAuthProvider(baseUrl, auth)],
	});
});
afterAll(async () => {
	await ts.stop();
	auth.stop();
});

describe("signing the server in", () => {
	test("an API key: a secret question, the key stored 0600 on the server, never sent back; the models become usable", async () => {
		const c = await ts.connect();
		const login = await c.open(loginContract, {});
		const models = await c.open(modelsContract, {});
		const keyed = login.state!.providers.find((p) => p.id === "keyed")!;
		expect(keyed).toMatchObject({
			name: "Keyed Provider",
			apiKey: { name: "Keyed API key" },
			oauth: null,
			signedIn: null,
		});
		expect(models.state!.models.some((m) => m.provider === "keyed")).toBe(false);

		// Whatever the server logs while signing in, the key is not in it.
		const logged: string[] = [];
		const originals = { log: console.log, error: console.error, warn: console.warn };
		for (const name of ["log", "error", "warn"] as const) {
			console[name] = (...args: unknown[]) => void logged.push(args.map(String).join(" "));
		}
		const { flow } = await login.call("start", { provider: "keyed", method: "api_key" });
		const prompt = await waitForValue(() => login.state?.flow?.prompt ?? undefined, "the key question");
		expect(prompt).toMatchObject({ type: "secret", message: "Enter Keyed API key" });
		await login.call("answer", { flow, prompt: prompt.id, value: SECRET });
		await waitUntil(() => login.state?.flow?.status === "done", "the sign-in to finish");
		// The server had a model already (models.json's): the sign-in chooses none (pi).
		expect(login.state?.flow?.selected).toBeUndefined();
		Object.assign(console, originals);
		for (const line of logged) expect(line).not.toContain(SECRET);
		await waitUntil(() => models.state?.models.some((m) => m.id === "keyed-model"), "the model");
		expect(login.state!.providers.find((p) => p.id === "keyed")!.signedIn).toBe("api_key");

		// The key signs requests to the provider, and lives only in the server's auth.json.
		const file = join(ts.dataDir, "auth.json");
		expect(statSync(file).mode & 0o777).toBe(0o600);
		expect(JSON.parse(readFileSync(file, "utf8")).keyed).toEqual({ type: "api_key", key: SECRET });
		for (const frame of c.frames) expect(frame).not.toContain(SECRET);
		const catalog = ts.server.ctx.models;
		const stream = await catalog.streamFn(
			catalog.find("keyed", "keyed-model")!,
			normalizeContext({ messages: [{ role: "user", content: "hi", timestamp: Date.now() }] }),
			{},
		);
		await stream.result();
		expect(ts.fake.authorizations.at(-1)).toBe(`Bearer ${SECRET}`);

		await login.call("logout", { provider: "keyed" });
		await waitUntil(() => !models.state?.models.some((m) => m.provider === "keyed"), "logout");
		expect(JSON.parse(readFileSync(file, "utf8")).keyed).toBeUndefined();
		c.close();
	});

	test("OAuth on loopback: the URL shown as an event, the pasted code exchanged, a wrong code fails without echoing it", async () => {
		const c = await ts.connect();
		const login = await c.open(loginContract, {});
		expect(login.state!.providers.find((p) => p.id === "loopy")).toMatchObject({
			oauth: { name: "Loopy account", label: "Sign in with Loopy", subscription: true },
			apiKey: null,
		});
		const bad = await login.call("start", { provider: "loopy", method: "oauth" });
		const first = await waitForValue(() => login.state?.flow?.prompt ?? undefined, "the code question");
		expect(login.state!.flow!.events).toEqual([
			{ type: "auth_url", url: `${auth.origin}/authorize?client=p2`, instructions: "Open it and sign in" },
			{ type: "progress", message: "Waiting for the code…" },
		]);
		await login.call("answer", { flow: bad.flow, prompt: first.id, value: "wrong-code" });
		await waitUntil(() => login.state?.flow?.status === "failed", "the failure");
		expect(login.state!.flow!.error).toBe("token exchange failed: 400");

		const good = await login.call("start", { provider: "loopy", method: "oauth" });
		const second = await waitForValue(
			() => (login.state?.flow?.id === good.flow ? (login.state.flow.prompt ?? undefined) : undefined),
			"the second question",
		);
		await login.call("answer", { flow: good.flow, prompt: second.id, value: "good-code" });
		await waitUntil(() => login.state?.flow?.status === "done", "the sign-in");
		const models = await c.open(modelsContract, {});
		await waitUntil(() => models.state?.models.some((m) => m.id === "loopy-model"), "the model");
		for (const frame of c.frames) expect(frame).not.toContain("access-good-code");
		c.close();
	});

	test("cancel ends a waiting flow; one flow at a time; a stale answer is refused", async () => {
		const c = await ts.connect();
		const login = await c.open(loginContract, {});
		const { flow } = await login.call("start", { provider: "keyed", method: "api_key" });
		const prompt = await waitForValue(() => login.state?.flow?.prompt ?? undefined, "the question");
		await expect(login.call("start", { provider: "loopy", method: "oauth" })).rejects.toThrow("already running");
		await login.call("cancel", { flow });
		await waitUntil(() => login.state?.flow?.status === "cancelled", "cancelled");
		await expect(login.call("answer", { flow, prompt: prompt.id, value: "late" })).rejects.toThrow("no such sign-in");
		await expect(login.call("start", { provider: "keyed", method: "oauth" })).rejects.toThrow("has no account sign-in");
		c.close();
	});
});
