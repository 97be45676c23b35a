import { describe, expect, test } from "bun:test";
import { SessionStart } from "../../../src/plugins/sessions/tui/session-start.ts";
import type { StartData } from "../../../src/protocol/channel.ts";
import { ObjectClient } from "../../../src/protocol/object-client.ts";
import { testGuest } from "../../support/guest-context.ts";
import { sessionRow } from "../../support/session-row.ts";
import { waitUntil } from "../../support/wait.ts";

const OWNER = { role: "deviceOwner" as const, id: "device", name: "owner", session: null };
const HERE = "/work/app";
const OLD = "11111111-1111-4111-8111-111111111111";
const NEW = "22222222-2222-4222-8222-222222222222";

interface Frame {
	t: string;
	h?: number;
	id?: number;
	method?: string;
	object?: string;
	args?: unknown;
}

/** A start on this device's server: the guest's frames are recorded, the server's are given by the test. */
function deviceStart(start: Partial<StartData> = {}) {
	const client = new ObjectClient();
	const sent: Frame[] = [];
	client.attach((text) => sent.push(JSON.parse(text)));
	const guest = testGuest({
		open: (contract, input) => client.open(contract, input),
		start: { local: { cwd: HERE, home: "/home/me" }, ...start },
	});
	const sessionStart = new SessionStart(guest.ctx, () => {});
	const catalog = sent.find((f) => f.t === "open" && f.object === "sessions")!;
	const answer = (frame: object) => client.receive(JSON.stringify(frame));
	const snapshot = () =>
		answer({
			t: "snapshot",
			h: catalog.h,
			version: 1,
			role: "deviceOwner",
			state: { sessions: [sessionRow({ id: OLD, cwd: HERE, updatedAt: 5 })] },
		});
	return { sent, guest, sessionStart, catalog, answer, snapshot };
}

const created = (id: string) => sessionRow({ id, cwd: HERE });

describe("which session a start opens, asked for without waiting", () => {
	test("a plain start on this device asks for its new session with the catalog, not a round trip later", async () => {
		const { sent, guest, sessionStart, catalog, answer, snapshot } = deviceStart();
		// Before the server answered anything: the catalog and the new session are both on their way.
		expect(sent.map((f) => `${f.t}${f.method ? `:${f.method}` : ""}`)).toEqual(["open", "call:create"]);
		const create = sent.find((f) => f.method === "create")!;
		expect(create).toMatchObject({ h: catalog.h, args: { cwd: HERE } });

		snapshot();
		answer({ t: "result", h: catalog.h, id: create.id, ok: true, value: created(NEW) });
		guest.ctx.session.setIdentity(OWNER);
		await sessionStart.choose();
		expect(guest.ctx.session.id).toBe(NEW);
		// The session asked for early is the one opened: no second one is made.
		expect(sent.filter((f) => f.method === "create")).toHaveLength(1);
	});

	test("--continue and --session ask for nothing early and open the session that exists", async () => {
		for (const start of [
			{ args: { verbose: false, draft: "", continue: true, resume: false } },
			{ args: { verbose: false, draft: "", continue: false, resume: false, session: OLD.slice(0, 8) } },
		] satisfies Partial<StartData>[]) {
			const { sent, guest, sessionStart, snapshot } = deviceStart(start);
			expect(sent.filter((f) => f.t === "call")).toEqual([]);
			snapshot();
			guest.ctx.session.setIdentity(OWNER);
			await sessionStart.choose();
			expect(guest.ctx.session.id).toBe(OLD);
			expect(sent.filter((f) => f.t === "call")).toEqual([]);
		}
	});

	test("an early request the server refused is asked again once the server said who this is", async () => {
		const { sent, guest, sessionStart, catalog, answer, snapshot } = deviceStart();
		const early = sent.find((f) => f.method === "create")!;
		snapshot();
		answer({ t: "result", h: catalog.h, id: early.id, ok: false, code: "unavailable", message: "busy" });
		guest.ctx.session.setIdentity(OWNER);
		const chosen = sessionStart.choose();
		await waitUntil(() => sent.filter((f) => f.method === "create").length === 2, "the second request");
		const again = sent.filter((f) => f.method === "create")[1]!;
		answer({ t: "result", h: catalog.h, id: again.id, ok: true, value: created(NEW) });
		await chosen;
		expect(guest.ctx.session.id).toBe(NEW);
		expect(guest.notices).toEqual([]);
	});
});
