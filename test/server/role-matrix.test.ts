import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Role } from "../../src/protocol/roles.ts";
import type { Principal } from "../../src/server/objects/principal.ts";
import { startTestServer, type TestServer } from "../support/p2-server.ts";
import { waitUntil } from "../support/wait.ts";

/**
 * Every contract × every role, written out by hand (not derived from the contracts), so a contract that
 * grants too much or too little fails here.
 */
const OWNER = ["deviceOwner", "owner"] as const;
const PARTICIPANT = ["deviceOwner", "owner", "full"] as const;
const EVERYONE = ["deviceOwner", "owner", "full", "view"] as const;

interface Row {
	object: string;
	input: (session: string) => unknown;
	open: readonly Role[];
	calls: Record<string, { may: readonly Role[]; args: (session: string) => unknown }>;
}

const MATRIX: Row[] = [
	{ object: "access", input: () => ({}), open: EVERYONE, calls: {} },
	{
		object: "sessions",
		input: () => ({}),
		open: EVERYONE,
		calls: {
			create: { may: OWNER, args: () => ({ cwd: "/" }) },
			rename: { may: OWNER, args: (s) => ({ id: s, title: "renamed" }) },
			pin: { may: OWNER, args: (s) => ({ id: s, pinned: true }) },
			archive: { may: OWNER, args: (s) => ({ id: s }) },
			restore: { may: OWNER, args: (s) => ({ id: s }) },
			relocate: { may: OWNER, args: (s) => ({ id: s, env: "local", cwd }) },
		},
	},
	{
		object: "models",
		input: () => ({}),
		open: OWNER,
		calls: {
			setDefault: { may: OWNER, args: () => ({ provider: "fake", id: "fake-model" }) },
			reload: { may: OWNER, args: () => null },
			setScope: { may: OWNER, args: () => ({ patterns: [] }) },
		},
	},
	{
		object: "chat",
		input: (s) => ({ session: s, conversation: "main" }),
		open: EVERYONE,
		calls: {
			send: { may: PARTICIPANT, args: () => ({ text: "hi", mode: "steer", requestId: `r-${crypto.randomUUID()}` }) },
			stop: { may: PARTICIPANT, args: () => null },
			dequeue: { may: PARTICIPANT, args: () => ({ id: "nothing" }) },
			dequeueOwn: { may: PARTICIPANT, args: () => null },
			configure: { may: OWNER, args: () => ({ thinkingLevel: "low" }) },
			page: { may: EVERYONE, args: () => ({ beforeSeq: 1_000_000, limit: 10 }) },
			ackReturned: { may: PARTICIPANT, args: () => ({ id: "nothing" }) },
			compact: { may: PARTICIPANT, args: () => ({}) },
			shell: {
				may: PARTICIPANT,
				args: () => ({ command: "true", includeInContext: false, requestId: `r-${crypto.randomUUID()}` }),
			},
			newContext: { may: OWNER, args: () => ({}) },
			fork: { may: OWNER, args: () => ({ beforeSeq: 999_999 }) },
			approve: { may: OWNER, args: () => ({ id: "nothing" }) },
			reject: { may: OWNER, args: () => ({ id: "nothing" }) },
			files: { may: EVERYONE, args: () => null },
			preview: { may: EVERYONE, args: () => ({ id: "0a0a0a0a-0000-4000-8000-000000000000" }) },
		},
	},
	{ object: "usage", input: (s) => ({ session: s, conversation: "main" }), open: EVERYONE, calls: {} },
	{
		object: "conversations",
		input: (s) => ({ session: s }),
		open: EVERYONE,
		calls: {
			archive: { may: PARTICIPANT, args: () => ({ id: "agent-none" }) },
			restore: { may: PARTICIPANT, args: () => ({ id: "agent-none" }) },
		},
	},
	{ object: "tui-defaults", input: () => ({}), open: EVERYONE, calls: {} },
	{
		object: "login",
		input: () => ({}),
		open: OWNER,
		calls: {
			start: { may: OWNER, args: () => ({ provider: "no-such-provider", method: "api_key" }) },
			answer: { may: OWNER, args: () => ({ flow: "none", prompt: "none", value: "x" }) },
			cancel: { may: OWNER, args: () => ({ flow: "none" }) },
			logout: { may: OWNER, args: () => ({ provider: "no-such-provider" }) },
		},
	},
	{
		object: "sharing",
		input: (s) => ({ session: s }),
		open: OWNER,
		calls: {
			link: { may: OWNER, args: () => ({ access: "view" }) },
			reset: { may: OWNER, args: () => ({ access: "view" }) },
			setAccess: { may: OWNER, args: () => ({ guest: "nobody", access: "view" }) },
			remove: { may: OWNER, args: () => ({ guest: "nobody", block: false }) },
			setApproval: { may: OWNER, args: () => ({ on: false }) },
			setGuestForwards: { may: OWNER, args: () => ({ on: false }) },
		},
	},
	{
		object: "path-completion",
		input: (s) => ({ session: s }),
		open: PARTICIPANT,
		calls: { complete: { may: PARTICIPANT, args: () => ({ prefix: "", mode: "path" }) } },
	},
	{
		object: "prompts",
		input: (s) => ({ session: s }),
		open: PARTICIPANT,
		calls: { expand: { may: PARTICIPANT, args: () => ({ text: "/review this" }) } },
	},
	{
		object: "workspace",
		input: (s) => ({ session: s }),
		open: PARTICIPANT,
		calls: {
			list: { may: PARTICIPANT, args: () => ({ path: "" }) },
			read: { may: PARTICIPANT, args: () => ({ path: "nothing.txt", line: 1, limit: 10 }) },
			status: { may: PARTICIPANT, args: () => null },
			diff: { may: PARTICIPANT, args: () => ({ path: "nothing.txt", kind: "unstaged" }) },
			grep: { may: PARTICIPANT, args: () => ({ text: "nothing" }) },
		},
	},
	{
		object: "artifacts",
		input: (s) => ({ session: s }),
		open: EVERYONE,
		calls: { read: { may: EVERYONE, args: () => ({ name: "nothing.md" }) } },
	},
	{
		object: "search",
		input: () => ({}),
		open: OWNER,
		calls: { search: { may: OWNER, args: () => ({ query: "hello" }) } },
	},
	{ object: "logs", input: () => ({}), open: OWNER, calls: {} },
	{
		object: "notices",
		input: () => ({}),
		open: OWNER,
		calls: {
			dismiss: { may: OWNER, args: () => ({ id: "none" }) },
			retry: { may: OWNER, args: () => ({ id: "none" }) },
		},
	},
	{
		object: "devices",
		input: () => ({}),
		open: OWNER,
		calls: {
			signOut: { may: OWNER, args: () => ({ id: "none" }) },
			link: { may: OWNER, args: () => ({}) },
			signOutAll: { may: OWNER, args: () => ({}) },
		},
	},
	{
		object: "providers",
		input: () => ({}),
		open: OWNER,
		calls: { refresh: { may: OWNER, args: () => ({}) } },
	},
	// The test server is not in development mode: reload is refused as unavailable, not as forbidden.
	{ object: "dev", input: () => ({}), open: OWNER, calls: { reload: { may: OWNER, args: () => ({}) } } },
	{
		object: "ports",
		input: (s) => ({ session: s }),
		open: OWNER,
		calls: { refresh: { may: OWNER, args: () => ({}) } },
	},
	// Guests never acquire environments.
	{
		object: "envs",
		input: () => ({}),
		open: OWNER,
		calls: {
			test: { may: OWNER, args: () => ({ name: "local" }) },
			acceptKey: { may: OWNER, args: () => ({ name: "none", fingerprints: [] }) },
			forgetKey: { may: OWNER, args: () => ({ name: "local" }) },
			listDirectory: { may: OWNER, args: () => ({ env: "local", path: "/" }) },
		},
	},
	{
		object: "chat-mode",
		input: (s) => ({ session: s }),
		open: EVERYONE,
		calls: { set: { may: OWNER, args: () => ({ on: false }) } },
	},
	{
		object: "terminal",
		input: (s) => ({ session: s }),
		open: PARTICIPANT,
		calls: {
			resize: { may: PARTICIPANT, args: () => ({ cols: 90, rows: 30 }) },
			write: { may: PARTICIPANT, args: () => ({ data: "" }) },
		},
	},
];

let ts: TestServer;
let session = "";
let otherSession = "";
const cwd = realpathSync(mkdtempSync(join(tmpdir(), "p2-matrix-")));

function principalFor(role: Role, forSession: string): Principal {
	if (role === "deviceOwner") return { role, id: "device", name: "owner" };
	if (role === "owner") return { role, id: "owner:1", name: "owner" };
	return { role, id: `guest:${role}`, name: `${role} guest`, session: forSession };
}

/** Frames straight into the server's object host, as its WebSocket handler feeds them. */
function connectAs(principal: Principal) {
	const frames: Record<string, unknown>[] = [];
	const waiters: ((f: Record<string, unknown>) => void)[] = [];
	const connection = ts.server.ctx.host.connect(principal, {
		send(text) {
			const frame = JSON.parse(text);
			frames.push(frame);
			// Patches and the greeting are not answers to a request.
			if (frame.t !== "patch" && frame.t !== "hello") waiters.shift()?.(frame);
		},
	});
	const next = (text: string) =>
		new Promise<Record<string, unknown>>((resolve) => {
			waiters.push(resolve);
			void connection.receive(text);
		});
	return { connection, frames, next };
}

beforeAll(async () => {
	ts = await startTestServer();
	const owner = ts.server.ctx.catalog;
	session = owner.create({ cwd }).id;
	otherSession = owner.create({ cwd }).id;
});

afterAll(async () => {
	await ts.stop();
	rmSync(cwd, { recursive: true, force: true });
});

describe("role matrix", () => {
	test("every object the server serves has a row", () => {
		expect(
			ts.server.ctx.host
				.contracts()
				.map((c) => c.name)
				.sort(),
		).toEqual(MATRIX.map((r) => r.object).sort());
	});

	for (const row of MATRIX) {
		for (const role of ["deviceOwner", "owner", "full", "view"] as const) {
			const mayOpen = row.open.includes(role);
			test(`${row.object} × ${role}: open ${mayOpen ? "allowed" : "refused"}`, async () => {
				const { next } = connectAs(principalFor(role, session));
				const opened = await next(
					JSON.stringify({ t: "open", h: 1, object: row.object, version: 1, input: row.input(session) }),
				);
				if (!mayOpen) {
					expect(opened).toMatchObject({ t: "refused", h: 1, code: "forbidden" });
					return;
				}
				expect(opened).toMatchObject({ t: "snapshot", h: 1, role });
				let id = 1;
				for (const [name, spec] of Object.entries(row.calls)) {
					const result = await next(
						JSON.stringify({ t: "call", h: 1, id: ++id, method: name, args: spec.args(session) }),
					);
					expect(result).toMatchObject({ t: "result", h: 1, id });
					if (spec.may.includes(role)) {
						expect({ name, code: result.code }).not.toEqual({ name, code: "forbidden" });
					} else {
						expect({ name, ok: result.ok, code: result.code }).toEqual({ name, ok: false, code: "forbidden" });
					}
				}
			});
		}
	}

	for (const role of ["full", "view"] as const) {
		test(`a ${role} guest cannot open another session's chat or usage`, async () => {
			const { next } = connectAs(principalFor(role, session));
			for (const object of ["chat", "usage"]) {
				const frame = await next(
					JSON.stringify({
						t: "open",
						h: 7,
						object,
						version: 1,
						input: { session: otherSession, conversation: "main" },
					}),
				);
				expect(frame).toMatchObject({ t: "refused", h: 7, code: "forbidden" });
			}
		});

		test(`a ${role} guest cannot open another session's conversations`, async () => {
			const { next } = connectAs(principalFor(role, session));
			const frame = await next(
				JSON.stringify({ t: "open", h: 8, object: "conversations", version: 1, input: { session: otherSession } }),
			);
			expect(frame).toMatchObject({ t: "refused", h: 8, code: "forbidden" });
		});

		test(`a ${role} guest's catalog holds only their session`, async () => {
			const { next } = connectAs(principalFor(role, session));
			const frame = (await next(JSON.stringify({ t: "open", h: 1, object: "sessions", version: 1, input: {} }))) as {
				state: { sessions: { id: string }[] };
			};
			expect(frame.state.sessions.map((s) => s.id)).toEqual([session]);
		});
	}

	test("a demoted guest loses the objects the new role may not hold, live", async () => {
		const { connection, next, frames } = connectAs(principalFor("full", session));
		await next(
			JSON.stringify({ t: "open", h: 1, object: "chat", version: 1, input: { session, conversation: "main" } }),
		);
		connection.setPrincipal(principalFor("view", session));
		const refused = await next(
			JSON.stringify({
				t: "call",
				h: 1,
				id: 2,
				method: "send",
				args: { text: "x", mode: "steer", requestId: "r-demoted-1" },
			}),
		);
		expect(refused).toMatchObject({ ok: false, code: "forbidden" });
		expect(frames.some((f) => f.t === "closed")).toBe(false);
	});

	test("a view guest's chat never carries the server's paths of the loaded context files; a participant's does", async () => {
		const dir = join(cwd, "with-context");
		mkdirSync(dir);
		const id = ts.server.ctx.catalog.create({ cwd: dir }).id;
		const open = JSON.stringify({
			t: "open",
			h: 1,
			object: "chat",
			version: 1,
			input: { session: id, conversation: "main" },
		});
		const viewer = connectAs(principalFor("view", id));
		const full = connectAs(principalFor("full", id));
		const demoted = connectAs({ ...principalFor("full", id), id: "guest:demoted" });
		const seen = await viewer.next(open);
		expect(seen).toMatchObject({ t: "snapshot", state: { entries: [] } });
		expect(seen.state).not.toHaveProperty("contextFiles");
		expect(await full.next(open)).toMatchObject({ t: "snapshot", state: { contextFiles: [] } });
		await demoted.next(open);

		// The next run reads a new AGENTS.md: participants are shown its path, as it happens.
		writeFileSync(join(dir, "AGENTS.md"), "# rules\n");
		const agents = join(dir, "AGENTS.md");
		const sent = await full.next(
			JSON.stringify({
				t: "call",
				h: 1,
				id: 2,
				method: "send",
				args: { text: "hi", mode: "steer", requestId: "r-context-1" },
			}),
		);
		expect(sent).toMatchObject({ ok: true });
		const runEnded = (frames: Record<string, unknown>[]) =>
			frames.some((f) => f.t === "patch" && JSON.stringify(f.ops).includes('"path":["live"],"value":null'));
		await waitUntil(
			() => runEnded(full.frames) && runEnded(viewer.frames) && runEnded(demoted.frames),
			"the run's end",
		);
		expect(JSON.stringify(full.frames)).toContain(agents);
		expect(JSON.stringify(demoted.frames)).toContain(agents);
		expect(JSON.stringify(viewer.frames)).not.toContain("AGENTS.md");

		// Demoted while the handle stays open: the paths are taken away.
		const before = demoted.frames.length;
		demoted.connection.setPrincipal({ ...principalFor("view", id), id: "guest:demoted" });
		expect(demoted.frames.slice(before)).toEqual([{ t: "patch", h: 1, ops: [{ op: "del", path: ["contextFiles"] }] }]);
	});
});
