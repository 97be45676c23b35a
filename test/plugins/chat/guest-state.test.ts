import { expect, test } from "bun:test";
import type { ChatState } from "../../../src/plugins/chat/contract.ts";
import { GuestChatState } from "../../../src/plugins/chat/guest-state.ts";
import { LiveState } from "../../../src/server/objects/live-state.ts";

const state = (contextFiles: string[]): ChatState => ({
	entries: [],
	older: false,
	live: null,
	queue: [],
	returned: [],
	model: null,
	thinkingLevel: "off",
	compacting: null,
	shell: null,
	contextFiles,
});

/** The source sends at once, so what a guest's copy passes on can be read right after each update. */
function source(files: string[]) {
	return new LiveState(state(files), { schedule: (flush) => flush() });
}

test("a viewer's copy leaves out the context files, in the snapshot and in every patch, and keeps the rest", () => {
	const live = source(["/srv/project/AGENTS.md"]);
	const guest = new GuestChatState(live, "view");
	const sent: string[] = [];
	guest.live.subscribe((json) => sent.push(json));
	expect(guest.live.state).not.toHaveProperty("contextFiles");
	live.update([
		{ op: "set", path: ["contextFiles"], value: ["/srv/project/CLAUDE.md"] },
		{ op: "set", path: ["older"], value: true },
	]);
	live.update([{ op: "push", path: ["contextFiles"], items: ["/srv/other.md"] }]);
	live.update([{ op: "set", path: [], value: state(["/srv/whole.md"]) }]);
	expect(sent.join("")).not.toContain("/srv");
	expect(guest.live.state).toEqual((({ contextFiles: _, ...rest }) => rest)(state([])) as ChatState);
	guest.release();
	live.update([{ op: "set", path: ["older"], value: true }]);
	expect(guest.live.state.older).toBe(false);
});

test("a guest's copy follows their role: promoted, the paths are shown; demoted, they are taken away", () => {
	const live = source(["/srv/AGENTS.md"]);
	const guest = new GuestChatState(live, "view");
	guest.setRole("full");
	expect(guest.live.state.contextFiles).toEqual(["/srv/AGENTS.md"]);
	live.update([{ op: "set", path: ["contextFiles"], value: ["/srv/CLAUDE.md"] }]);
	expect(guest.live.state.contextFiles).toEqual(["/srv/CLAUDE.md"]);
	guest.setRole("view");
	expect(guest.live.state).not.toHaveProperty("contextFiles");
});
