/**
 * pi's `--models` in the UI (issue 37): the header's "Model scope" line names the run's scope, /scoped-models
 * starts from it, and what /scoped-models saves is the run's scope from then on.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { setKeybindings } from "@earendil-works/pi-tui";
import { buildKeymap } from "../../../src/guest/keymap.ts";
import { modelsContract } from "../../../src/plugins/models/contract.ts";
import { scopeLineParts } from "../../../src/plugins/models/tui/scope-line.ts";
import { ScopedModelsSelector } from "../../../src/plugins/models/tui/scoped-models-selector.ts";
import { modelsPlugin } from "../../../src/plugins/models/tui.ts";
import { chatFixture } from "../../support/chat-fixture.ts";
import { testGuest } from "../../support/guest-context.ts";
import { waitForState } from "../../support/p2-server.ts";
import { TEST_START } from "../../support/start-data.ts";
import { waitUntil } from "../../support/wait.ts";

const plain = (lines: readonly string[]) =>
	lines.map((line) => line.replace(/\x1b\[[0-9;]*m/g, "").trimEnd()).join("\n");
setKeybindings(buildKeymap({ platform: "linux", windowsKeys: false }, [], {}).manager);
const fixture = chatFixture();

const model = (id: string) => ({ id, reasoning: true, contextWindow: 32000, maxTokens: 4096 });

/** A server with two models, and an owner's guest started with `--models`. */
async function ownerWithModels(patterns: string[], quietStartup?: boolean) {
	const { server, owner, session } = await fixture.openChat();
	writeFileSync(
		join(server.dataDir, "models.json"),
		JSON.stringify({
			providers: {
				fake: {
					baseUrl: server.fake.baseUrl,
					api: "openai-completions",
					apiKey: "test-key",
					models: [model("fake-model"), model("second-model")],
				},
			},
		}),
	);
	const catalog = await owner.open(modelsContract, {});
	await waitForState(catalog, (s) => s.models.length === 2);
	const guest = testGuest({
		identity: { role: "deviceOwner", id: "device", name: "owner", session: null },
		open: (contract, input) => owner.client.open(contract, input),
		start: { args: { ...TEST_START.args, models: patterns } },
	});
	if (quietStartup !== undefined) {
		const effective = guest.ctx.preferences.effective();
		const settings = { ...effective.settings, quietStartup };
		Object.assign(guest.ctx, {
			preferences: { ...guest.ctx.preferences, effective: () => ({ ...effective, settings }) },
		});
	}
	const off = modelsPlugin.register(guest.ctx);
	guest.ctx.session.open(session);
	const header = () => plain(guest.ctx.ui.slots.container("header").render(100));
	return { guest, catalog, header, off };
}

describe("--models in the UI", () => {
	test("pi's line: each id with its pinned level, and the key that cycles them", () => {
		const scope = [
			{ provider: "fake", id: "second-model", thinkingLevel: "high" as const },
			{ provider: "fake", id: "fake-model", thinkingLevel: null },
		];
		expect(scopeLineParts(scope, ["ctrl+p"])).toEqual({
			models: "Model scope: second-model:high, fake-model",
			hint: " (Ctrl+P to cycle)",
		});
		expect(scopeLineParts(scope, [])?.hint).toBe("");
		expect(scopeLineParts([], ["ctrl+p"])).toBeUndefined();
		expect(scopeLineParts(undefined, ["ctrl+p"])).toBeUndefined();
	});

	test("the header names the run's scope under pi's header, once the server resolved it", async () => {
		const { header, off } = await ownerWithModels(["fake/second-model:high", "fake-model"]);
		await waitUntil(() => header().includes("Model scope:"), "the scope line");
		expect(header()).toBe("\n Model scope: second-model:high, fake-model");
		off();
	});

	test("without --models it names the saved scope (pi's enabledModels), and follows it as it is saved", async () => {
		const { header, catalog, guest, off } = await ownerWithModels([]);
		await waitUntil(() => guest.opened.includes("models"), "the catalog opened");
		expect(header()).toBe("");
		await catalog.call("setScope", { patterns: ["fake/fake-model"] });
		await waitUntil(() => header().includes("Model scope"), "the saved scope's line");
		expect(header()).toBe("\n Model scope: fake-model");
		off();
	});

	test("quietStartup hides it, as pi hides its startup details", async () => {
		const { header, guest, off } = await ownerWithModels(["fake/second-model"], true);
		await waitUntil(() => guest.opened.includes("models"), "the catalog opened");
		await guest.ctx.services.get("models")?.scopeForRun();
		expect(header()).toBe("");
		off();
	});

	test("/scoped-models starts from the run's scope; what it saves is the run's scope from then on", async () => {
		const { guest, catalog, header, off } = await ownerWithModels(["fake/second-model"]);
		await waitUntil(() => header().includes("Model scope: second-model"), "the scope line");
		await guest.ctx.commands.slash("scoped-models")!.run("");
		const selector = guest.layout.selector?.component;
		if (!(selector instanceof ScopedModelsSelector)) throw new Error("the scoped models selector is not open");
		const screen = plain(selector.render(120));
		// The saved scope is every model; the run's is one.
		expect(screen).toContain("1/2 enabled");
		expect(screen).toContain("✓ second-model [fake]");
		expect(screen).not.toContain("✓ fake-model [fake]");

		selector.handleInput("\x01"); // Ctrl+A: every model
		selector.handleInput("\x13"); // Ctrl+S
		await waitUntil(() => !header().includes("Model scope"), "no scope line: every model cycles");
		expect(catalog.state?.scopePatterns).toEqual([]);
		expect(await guest.ctx.services.get("models")?.scopeForRun()).toEqual([]);
		off();
	});
});
