import { describe, expect, test } from "bun:test";
import type { SessionRow } from "../../../src/plugins/sessions/contract.ts";
import {
	chooseSession,
	newSessionWhateverTheCatalog,
	type SessionChoiceInput,
} from "../../../src/plugins/sessions/tui/session-choice.ts";
import { sessionRow } from "../../support/session-row.ts";

const row = (id: string, cwd: string, updatedAt: number, over: Partial<SessionRow> = {}): SessionRow =>
	sessionRow({ id, cwd, updatedAt, ...over });
const A = "aaaaaaaa-0000-4000-8000-000000000001";
const B = "bbbbbbbb-0000-4000-8000-000000000002";
const C = "aaaaaaab-0000-4000-8000-000000000003";

describe("session choice", () => {
	const sessions = [row(A, "/p", 5), row(B, "/q", 9), row(C, "/p", 7, { archived: true })];
	const base = { role: "deviceOwner" as const, guestSession: null, sessions, local: { cwd: "/p" } };

	test("the new session known before the catalog is the one chosen for an owner whatever the catalog holds", () => {
		const argsTried: SessionChoiceInput["args"][] = [
			{ continue: false },
			{ continue: true },
			{ continue: false, session: "aaaa" },
			{ continue: false, fork: "bbbb" },
			{ continue: false, lastSession: B },
		];
		for (const args of argsTried) {
			for (const local of [{ cwd: "/p" }, { cwd: "/new" }, undefined]) {
				const early = newSessionWhateverTheCatalog(args, local);
				if (early === undefined) continue;
				for (const catalog of [[], sessions]) {
					for (const role of ["deviceOwner", "owner"] as const) {
						const chosen = chooseSession({
							role,
							guestSession: null,
							sessions: catalog,
							args,
							...(local ? { local } : {}),
						});
						expect(chosen).toEqual({ kind: "create", cwd: early });
					}
				}
			}
		}
		// Only a plain start on this device is known early.
		expect(argsTried.filter((args) => newSessionWhateverTheCatalog(args, { cwd: "/p" }))).toEqual([
			{ continue: false },
			{ continue: false, lastSession: B },
		]);
		expect(newSessionWhateverTheCatalog({ continue: false }, undefined)).toBeUndefined();
	});

	test("a new session in this directory by default, like pi", () => {
		expect(chooseSession({ ...base, args: { continue: false } })).toEqual({ kind: "create", cwd: "/p" });
	});

	test("--continue: the latest live session here, else a new one", () => {
		expect(chooseSession({ ...base, args: { continue: true } })).toEqual({ kind: "open", id: A });
		expect(chooseSession({ ...base, local: { cwd: "/elsewhere" }, args: { continue: true } })).toEqual({
			kind: "create",
			cwd: "/elsewhere",
		});
	});

	test("--session: an id or a unique prefix; ambiguous or unknown ones are named", () => {
		expect(chooseSession({ ...base, args: { continue: false, session: B } })).toEqual({ kind: "open", id: B });
		expect(chooseSession({ ...base, args: { continue: false, session: "bbbb" } })).toEqual({ kind: "open", id: B });
		expect(chooseSession({ ...base, args: { continue: false, session: "aaaa" } })).toEqual({
			kind: "none",
			reason: "Session id aaaa is ambiguous.",
		});
		expect(chooseSession({ ...base, args: { continue: false, session: "ffff" } })).toEqual({
			kind: "none",
			reason: "No session ffff on this server.",
		});
	});

	test("--fork: a new fork of the session named by an id or a unique prefix", () => {
		expect(chooseSession({ ...base, args: { continue: false, fork: "bbbb" } })).toEqual({ kind: "fork", id: B });
		expect(chooseSession({ ...base, args: { continue: false, fork: "aaaa" } })).toMatchObject({ kind: "none" });
	});

	test("a remote server: the session this person had open last there (remembered by the launcher), else the latest", () => {
		const remote = { role: "owner" as const, guestSession: null, sessions };
		expect(chooseSession({ ...remote, args: { continue: false, lastSession: A } })).toEqual({ kind: "open", id: A });
		expect(chooseSession({ ...remote, args: { continue: true, lastSession: A } })).toEqual({ kind: "open", id: A });
		// Archived or gone since: the latest live one.
		expect(chooseSession({ ...remote, args: { continue: false, lastSession: C } })).toEqual({ kind: "open", id: B });
		// This device's server follows pi: the folder decides, not the last session.
		expect(chooseSession({ ...base, args: { continue: false, lastSession: B } })).toEqual({
			kind: "create",
			cwd: "/p",
		});
	});

	test("guests get the session they joined; a remote owner continues the latest", () => {
		expect(chooseSession({ ...base, role: "view", guestSession: B, args: { continue: false } })).toEqual({
			kind: "open",
			id: B,
		});
		expect(chooseSession({ ...base, role: "full", args: { continue: false } }).kind).toBe("none");
		const { local: _, ...remote } = base;
		expect(chooseSession({ ...remote, role: "owner", args: { continue: false } })).toEqual({ kind: "open", id: B });
		expect(chooseSession({ ...remote, role: "owner", sessions: [], args: { continue: false } })).toEqual({
			kind: "none",
			reason: "No sessions on this server yet.",
		});
	});
});
