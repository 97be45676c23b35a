/**
 * /envs, /cd and /new's [env:]path in the UI, against a real server and a real sshd: the move's note and its
 * confirmation, relative paths, Tab completion of environment names and the machine's folders, host-key review
 * from the screen, and guests, who never acquire environments.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { envsPlugin } from "../../../src/plugins/envs/tui.ts";
import { sessionsContract } from "../../../src/plugins/sessions/contract.ts";
import { registerLocationCommands } from "../../../src/plugins/sessions/tui/location-commands.ts";
import { registerNewAndName } from "../../../src/plugins/sessions/tui/session-commands.ts";
import { type TestGuest, testGuest } from "../../support/guest-context.ts";
import { startTestServer, type TestClient, type TestServer } from "../../support/p2-server.ts";
import { findSshd, TestSshd } from "../../support/sshd.ts";
import { waitForValue, waitUntil } from "../../support/wait.ts";

const sshdPath = findSshd();
const plain = (lines: readonly string[]) => lines.join("\n").replace(/\x1b\[[0-9;]*m/g, "");

describe.skipIf(!sshdPath)("environments in the UI", () => {
	let sshd: TestSshd;
	let ts: TestServer;
	let owner: TestClient;
	let work: string;

	beforeAll(async () => {
		sshd = await TestSshd.start(sshdPath!);
		work = join(sshd.home, "work");
		mkdirSync(join(work, "sub"), { recursive: true });
		mkdirSync(join(work, "second"), { recursive: true });
		// A folder whose name would move the cursor if shown: never offered.
		mkdirSync(join(work, "s\x1b[2Jcreen"), { recursive: true });
		ts = await startTestServer();
		writeFileSync(join(ts.dataDir, "envs.json"), JSON.stringify({ environments: [sshd.entry("box")] }));
		ts.server.ctx.environments.reload();
		owner = await ts.connect();
	});
	afterAll(async () => {
		await ts?.stop();
		await sshd?.stop();
	});

	/** An owner's guest with the envs plugin and the location commands, on a fresh local session. */
	async function ownerGuest(): Promise<{ guest: TestGuest; session: string; catalog: () => unknown }> {
		const sessions = owner.client.open(sessionsContract, {});
		await sessions.ready;
		const here = realpathSync(ts.dataDir);
		const row = await sessions.call("create", { cwd: here });
		const guest = testGuest({
			identity: { role: "deviceOwner", id: "device", name: "owner", session: null },
			open: (contract, input) => owner.client.open(contract, input),
		});
		guest.ctx.session.open(row.id);
		envsPlugin.register(guest.ctx);
		registerLocationCommands(guest.ctx, () => sessions);
		registerNewAndName(guest.ctx, () => sessions);
		await waitUntil(() => sessions.state?.sessions.some((s) => s.id === row.id), "the session in the catalog");
		return { guest, session: row.id, catalog: () => sessions.state?.sessions.find((s) => s.id === row.id) };
	}

	/** The machine's key trusted (the first test reviews it from the screen; the others need it done). */
	async function trust(): Promise<void> {
		const envs = ts.server.ctx.environments;
		const result = await envs.test("box");
		if (!result.ok && result.hostKey) {
			envs.acceptKey(
				"box",
				result.hostKey.offered.map((k) => k.fingerprint),
			);
		}
	}

	const selectorText = (guest: TestGuest) => plain(guest.layout.selector?.component.render(100) ?? []);

	test("/envs: Ctrl+T finds the unverified key, Ctrl+K shows its fingerprint and trusts it after a yes", async () => {
		const { guest } = await ownerGuest();
		await guest.ctx.commands.slash("envs")?.run("");
		await waitUntil(() => selectorText(guest).includes("box"), "the environments");
		const text = selectorText(guest);
		expect(text).toContain("→ ● This device · this session");
		expect(text).toContain(`  box`);
		const panel = guest.layout.selector!.component;
		panel.handleInput?.("\x1b[B");
		panel.handleInput?.("\x14");
		await waitUntil(() => selectorText(guest).includes("host key to review"), "the test's result");
		expect(selectorText(guest)).toContain("The host key is not verified yet. Presented: ssh-ed25519");
		expect(selectorText(guest)).toMatch(/SHA256:[A-Za-z0-9+/]{43} · ctrl\+k to review/);
		panel.handleInput?.("\x0b");
		expect(selectorText(guest)).toMatch(/Trust box's host key SHA256:[A-Za-z0-9+/]+\? \(y\/n\)/);
		panel.handleInput?.("y");
		await waitUntil(() => selectorText(guest).includes("✓ connected"), "connected after the key was accepted");
		expect(guest.notices.map((n) => n.text)).toContain("✓ box's host key is trusted.");
		// Ctrl+F forgets it, after a yes: the next test stops at the key again.
		panel.handleInput?.("\x06");
		expect(selectorText(guest)).toContain(
			"Forget box's host key? Connecting stops until a key is accepted again. (y/n)",
		);
		panel.handleInput?.("y");
		await waitUntil(() => guest.notices.some((n) => n.text === "box's host key is forgotten."), "the key forgotten");
		expect((await ts.server.ctx.environments.test("box")).ok).toBe(false);
	});

	test("Enter on a machine opens the directory prompt with the move's note; Enter moves the session there", async () => {
		await trust();
		const { guest, catalog } = await ownerGuest();
		await guest.ctx.commands.slash("envs")?.run("");
		await waitUntil(() => selectorText(guest).includes("box"), "the environments");
		// Opening the screen warms the connection up: the row says how it went without Ctrl+T.
		await waitUntil(() => selectorText(guest).includes("✓ connected"), "the warm-up's test");
		const panel = guest.layout.selector!.component;
		panel.handleInput?.("\x1b[B");
		panel.handleInput?.("\r");
		await waitUntil(() => guest.layout.selector?.id === "cd-move", "the directory prompt (/cd's)");
		const prompt = guest.layout.selector!.component;
		expect(selectorText(guest)).toContain("Directory on box");
		expect(selectorText(guest)).toContain("Tools will run on box. The history stays; files are not copied.");
		// Replace the prefilled path with the machine's work folder.
		for (let i = 0; i < 200; i++) prompt.handleInput?.("\x7f");
		for (const char of "~/work") prompt.handleInput?.(char);
		prompt.handleInput?.("\r");
		await waitUntil(() => (catalog() as { env?: string } | undefined)?.env === "box", "the session on box");
		expect(catalog()).toMatchObject({ env: "box", cwd: work });
		expect(guest.layout.selector).toBeUndefined();
	});

	test("/cd: another machine asks first (its note, Enter confirms); a relative path moves at once; errors say why", async () => {
		await trust();
		const { guest, catalog } = await ownerGuest();
		const cd = guest.ctx.commands.slash("cd")!;
		await cd.run("box:~/work");
		expect(guest.layout.selector?.id).toBe("cd-move");
		expect(selectorText(guest)).toContain("Tools will run on box. The history stays; files are not copied.");
		expect(selectorText(guest)).toContain("~/work");
		guest.layout.selector!.component.handleInput?.("\r");
		await waitUntil(() => (catalog() as { env?: string } | undefined)?.env === "box", "moved to box");
		expect(catalog()).toMatchObject({ env: "box", cwd: work });
		await cd.run("sub/../second");
		await waitUntil(
			() => (catalog() as { cwd?: string } | undefined)?.cwd === join(work, "second"),
			"moved within box",
		);
		expect(guest.notices.at(-1)?.text).toBe(`✓ Tools now run in box:${join(work, "second")}`);
		await expect(cd.run("nowhere")).rejects.toThrow(
			`No such file or directory: ${join(work, "second", "nowhere")} on box`,
		);
		await expect(cd.run("gpu:/data")).rejects.toThrow("Unknown environment gpu");
	});

	test("/cd alone opens the prompt on the session's directory; Tab goes to the next machine, at its home, with the note", async () => {
		await trust();
		const { guest, catalog } = await ownerGuest();
		await guest.ctx.commands.slash("cd")!.run("");
		expect(guest.layout.selector?.id).toBe("cd-move");
		expect(selectorText(guest)).toContain("Directory on this device");
		expect(selectorText(guest)).not.toContain("Tools will run on");
		const prompt = guest.layout.selector!.component;
		prompt.handleInput?.("\t");
		await waitUntil(() => selectorText(guest).includes("Directory on box"), "the next environment");
		await waitUntil(() => selectorText(guest).includes(sshd.home), "the machine's home in the input");
		expect(selectorText(guest)).toContain("Tools will run on box. The history stays; files are not copied.");
		prompt.handleInput?.("\x1b");
		expect(guest.layout.selector).toBeUndefined();
		expect(catalog()).toMatchObject({ env: "local" });
	});

	test("Tab completes environment names, then the machine's folders", async () => {
		await trust();
		const { guest } = await ownerGuest();
		const complete = guest.ctx.commands.slash("cd")!.slash!.complete!;
		expect(await complete("bo")).toEqual([{ value: "box:", label: "box:", description: "environment" }]);
		expect(await complete("box:~/work/s")).toEqual([
			{ value: "box:~/work/second/", label: "second/" },
			{ value: "box:~/work/sub/", label: "sub/" },
		]);
		expect(await guest.ctx.commands.slash("new")?.slash?.complete?.("box:~/work/su")).toEqual([
			{ value: "box:~/work/sub/", label: "sub/" },
		]);
	});

	test("/new env:path starts a session on the machine", async () => {
		await trust();
		const { guest } = await ownerGuest();
		const before = guest.ctx.session.id;
		await guest.ctx.commands.slash("new")!.run("box:~/work/sub");
		expect(guest.ctx.session.id).not.toBe(before);
		const sessions = owner.client.open(sessionsContract, {});
		const row = await waitForValue(
			() => sessions.state?.sessions.find((s) => s.id === guest.ctx.session.id),
			"the new session in the catalog",
		);
		expect(row).toMatchObject({ env: "box", cwd: join(work, "sub") });
		sessions.close();
	});

	for (const role of ["full", "view"] as const) {
		test(`a ${role} guest never acquires environments`, async () => {
			const sessions = owner.client.open(sessionsContract, {});
			await sessions.ready;
			const guest = testGuest({
				identity: { role, id: `guest:${role}`, name: "guest", session: null },
				open: (contract, input) => owner.client.open(contract, input),
			});
			envsPlugin.register(guest.ctx);
			registerLocationCommands(guest.ctx, () => sessions);
			await guest.ctx.commands.slash("envs")?.run("");
			expect(await guest.ctx.commands.slash("cd")?.slash?.complete?.("bo")).toBeNull();
			await expect(guest.ctx.commands.invoke(guest.ctx.commands.slash("cd")!, "box:/")).rejects.toThrow(
				"Only the owner can move this session.",
			);
			expect(guest.opened).not.toContain("envs");
		});
	}
});
