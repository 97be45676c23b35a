import { afterEach, describe, expect, test } from "bun:test";
import { devicesPlugin } from "../../../src/plugins/devices/tui.ts";
import { testGuest } from "../../support/guest-context.ts";
import { signInOwner } from "../../support/guests.ts";
import { connectClient, startTestServer, type TestServer } from "../../support/p2-server.ts";
import { waitUntil } from "../../support/wait.ts";

let ts: TestServer | undefined;
afterEach(async () => {
	await ts?.stop();
	ts = undefined;
});

/** The /devices panel of an owner signed in with a link, against a real server; the launcher says yes. */
async function ownerPanel() {
	ts = await startTestServer();
	const cookie = await signInOwner(ts.server);
	await signInOwner(ts.server);
	const owner = await connectClient(ts.server, { cookie });
	const guest = testGuest({
		identity: { role: "owner", id: "owner:x", name: "owner", session: null },
		open: (contract, input) => owner.client.open(contract, input),
		answer: () => ({ ok: true }),
		start: { origin: ts.server.origin },
	});
	devicesPlugin.register(guest.ctx);
	await guest.ctx.commands.slash("devices")?.run("");
	const panel = guest.layout.selector?.component;
	if (!panel?.handleInput) throw new Error("no /devices panel");
	const text = () =>
		panel
			.render(120)
			.join("\n")
			.replace(/\x1b\[[0-9;]*m/g, "");
	await waitUntil(() => text().includes("this device ·"), "the sign-ins");
	return { guest, panel, text, handleInput: (data: string) => panel.handleInput?.(data) };
}

describe("/devices in the UI", () => {
	test("this device is signed out through the launcher (it holds the cookie), never by the server's method", async () => {
		const { guest, text, handleInput } = await ownerPanel();
		expect(text()).toContain("→ this device · signed in just now");
		handleInput("\x04");
		await waitUntil(() => guest.requests.length > 0, "a launcher request");
		expect(guest.requests).toEqual([{ action: "signOut", payload: { all: false } }]);
	});

	test("another device is signed out after a yes; 'a' asks the launcher to sign every owner out", async () => {
		const { guest, text, handleInput } = await ownerPanel();
		handleInput("\x1b[B");
		expect(text()).toMatch(/→ signed in just now/);
		handleInput("\x04");
		expect(text()).toContain("Sign this device out? It needs a new owner link afterwards. (y/n)");
		handleInput("y");
		await waitUntil(
			() =>
				!/signed in just now[^\n]*\n[^\n]*signed in just now/.test(text()) &&
				text().split("signed in just now").length === 2,
			"one sign-in left",
		);
		handleInput("a");
		handleInput("y");
		await waitUntil(() => guest.requests.length > 0, "a launcher request");
		expect(guest.requests).toEqual([{ action: "signOut", payload: { all: true } }]);
	});

	test("n makes a one-time link and hands it to the launcher's copy question, not to the screen", async () => {
		const { guest, text, handleInput } = await ownerPanel();
		handleInput("n");
		await waitUntil(() => guest.requests.length > 0, "a launcher request");
		const request = guest.requests[0] as { action: string; payload: { text: string; label: string } };
		expect(request.action).toBe("copy");
		expect(request.payload.text).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/owner#[A-Za-z0-9_-]{43}$/);
		expect(text()).not.toContain("/owner#");
		expect(guest.notices.map((n) => n.text).join("\n")).not.toContain("/owner#");
	});
});
