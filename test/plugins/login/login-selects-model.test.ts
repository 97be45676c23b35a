import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chatContract } from "../../../src/plugins/chat/contract.ts";
import { type LoginFlow, loginContract } from "../../../src/plugins/login/contract.ts";
import { doneNotices } from "../../../src/plugins/login/tui.ts";
import { sessionsContract } from "../../../src/plugins/sessions/contract.ts";
import { keyedProvider } from "../../support/fake-login-providers.ts";
import { startTestServer, type TestServer, waitForState } from "../../support/p2-server.ts";

let ts: TestServer | undefined;
let cwd = "";
afterEach(async () => {
	await ts?.stop();
	ts = undefined;
	if (cwd) rmSync(cwd, { recursive: true, force: true });
});

describe("the first sign-in on a server without models", () => {
	test("the open session takes the provider's model at once; it becomes the default; pi's words say so", async () => {
		ts = await startTestServer({ modelsJson: false, providers: (baseUrl) => [keyedProvider(baseUrl)] });
		cwd = realpathSync(mkdtempSync(join(tmpdir(), "p2-cwd-")));
		const c = await ts.connect();
		const sessions = await c.open(sessionsContract, {});
		const { id } = await sessions.call("create", { cwd });
		const chat = await c.open(chatContract, { session: id, conversation: "main" });
		expect(chat.state?.model).toBeNull();

		const login = await c.open(loginContract, {});
		const { flow } = await login.call("start", { provider: "keyed", method: "api_key" });
		const asked = await waitForState(login, (s) => s.flow?.prompt != null);
		await login.call("answer", { flow, prompt: asked.flow!.prompt!.id, value: "sk-keyed-1234" });
		const done = (await waitForState(login, (s) => s.flow?.status === "done")).flow!;
		const authFile = join(ts.dataDir, "auth.json");
		expect(done).toMatchObject({ selected: "keyed-model", savedTo: authFile });
		expect(doneNotices(done, "Keyed Provider", "api_key")).toEqual([
			[`Saved API key for Keyed Provider. Selected keyed-model. Credentials saved to ${authFile}`, "status"],
		]);

		const using = await waitForState(chat, (s) => s.model !== null);
		expect(using.model).toMatchObject({ provider: "keyed", id: "keyed-model" });
		expect(JSON.parse(readFileSync(join(ts.dataDir, "settings.json"), "utf8")).defaultModel).toEqual({
			provider: "keyed",
			id: "keyed-model",
		});
		ts.fake.enqueue({ text: "answered by the keyed model" });
		await chat.call("send", { text: "hi", mode: "steer", requestId: "req-login-select-1" });
		await waitForState(chat, (s) => s.live === null && s.entries.at(-1)?.kind === "assistant");
		expect((ts.fake.requests.at(-1) as { model: string }).model).toBe("keyed-model");
	});

	test("pi's words for a sign-in that chose nothing, or found no model to choose", () => {
		const flow: LoginFlow = { id: "f", provider: "p", method: "oauth", status: "done", events: [], prompt: null };
		expect(doneNotices({ ...flow, savedTo: "/d/auth.json" }, "Loopy Cloud", "oauth")).toEqual([
			["Logged in to Loopy Cloud. Credentials saved to /d/auth.json", "status"],
		]);
		expect(doneNotices({ ...flow, selected: null }, "Loopy Cloud", "oauth")).toEqual([
			["Logged in to Loopy Cloud", "status"],
			[
				"Error: Logged in to Loopy Cloud, but no models are available for that provider. Use /model to select a model.",
				"error",
			],
		]);
	});
});
