/**
 * What p2 leaves on the terminal when the UI exits, as pi does (`fullscreenExitOutput`): the transcript the UI
 * sent (its `exitOutput`), then "To resume this session:" and the command that reopens the session on this
 * server. The UI's text is the worker's: only its SGR colors pass (through the output filter); every other
 * control is made visible, so it can show but never move the cursor, set a title or answer for the terminal.
 */
import type { LaunchTarget } from "./launch-target.ts";
import { OutputFilter } from "./output-filter.ts";
import { visibleControls } from "./visible-text.ts";

const SGR = /\x1b\[[0-9;:]{0,64}m/g;
const SESSION_ID = /^[0-9a-f-]{36}$/;

/** The UI's transcript for the normal screen: one line per line, SGR colors only, each line ending reset. */
export function exitTranscript(text: string): string {
	if (!text) return "";
	const filter = new OutputFilter();
	const lines = text.split("\n").map((line) => {
		let out = "";
		let at = 0;
		let styled = false;
		for (const match of line.matchAll(SGR)) {
			out += visibleControls(line.slice(at, match.index));
			out += filter.write(match[0]);
			styled = true;
			at = match.index + match[0].length;
		}
		out += visibleControls(line.slice(at));
		return styled ? `${out}\x1b[0m` : out;
	});
	return `${lines.join("\n")}\n`;
}

/** pi's resume hint, for this server: `p2 --session <id>` here, `p2 <origin> --session <id>` for another one. */
export function resumeHint(target: Pick<LaunchTarget, "kind" | "origin">, session: string): string {
	if (!SESSION_ID.test(session)) return "";
	const command = target.kind === "device" ? `p2 --session ${session}` : `p2 ${target.origin()} --session ${session}`;
	return `\x1b[2mTo resume this session:\x1b[22m\n${visibleControls(command)}\n`;
}
