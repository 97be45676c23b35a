import { describe, expect, test } from "bun:test";
import type { ChatState } from "../../../src/plugins/chat/contract.ts";
import {
	GoneDirectoryNotice,
	goneDirectoryOf,
	goneDirectoryWarning,
} from "../../../src/plugins/chat/tui/gone-directory.ts";

describe("a session whose directory is gone", () => {
	test("the owner is offered /new where p2 started, or a path; a guest is told who can", () => {
		expect(goneDirectoryWarning("/work/old", "deviceOwner", "/home/me/proj")).toBe(
			"Warning: This session's directory no longer exists: /work/old. Type /new to start a session in /home/me/proj, or /new <path> for another directory.",
		);
		expect(goneDirectoryWarning("/work/old", "owner", undefined)).toBe(
			"Warning: This session's directory no longer exists: /work/old. Type /new <path> to start a session in another directory.",
		);
		expect(goneDirectoryWarning("/work/old", "full", undefined)).toBe(
			"Warning: This session's directory no longer exists: /work/old. Messages and commands cannot run there; only the owner can start a session in another directory.",
		);
	});

	test("read from the state's own key only", () => {
		const state: ChatState = {
			entries: [],
			older: false,
			live: null,
			queue: [],
			returned: [],
			model: null,
			thinkingLevel: "off",
			compacting: null,
			shell: null,
		};
		expect(goneDirectoryOf(undefined)).toBeNull();
		expect(goneDirectoryOf(state)).toBeNull();
		expect(goneDirectoryOf({ ...state, directoryGone: "/gone" })).toBe("/gone");
		expect(goneDirectoryOf(Object.assign(Object.create({ directoryGone: "/inherited" }), state))).toBeNull();
	});

	test("warned once per opening, and again if it goes after coming back", () => {
		const notice = new GoneDirectoryNotice();
		expect(notice.next(null, "deviceOwner", "/p")).toBeUndefined();
		expect(notice.next("/gone", "deviceOwner", "/p")).toContain("/gone");
		expect(notice.next("/gone", "deviceOwner", "/p")).toBeUndefined();
		expect(notice.next(null, "deviceOwner", "/p")).toBeUndefined();
		expect(notice.next("/gone", "deviceOwner", "/p")).toContain("/gone");
	});
});
