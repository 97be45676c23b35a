import { diffWords } from "diff";
import type { Theme } from "../theme/theme.ts";

/**
 * pi's edit diff: context lines in `toolDiffContext`, removed in `toolDiffRemoved`, added in `toolDiffAdded`;
 * when exactly one line is replaced by exactly one, the changed words are in reverse video.
 */
export function diffLines(diff: string, t: Theme): string[] {
	const rows = diff.split("\n");
	const out: string[] = [];
	for (let i = 0; i < rows.length; i++) {
		const row = rows[i]!;
		const next = rows[i + 1];
		const single =
			row.startsWith("-") && next?.startsWith("+") && !rows[i - 1]?.startsWith("-") && !rows[i + 2]?.startsWith("+");
		if (single && next) {
			const [oldPrefix, oldText] = split(row);
			const [newPrefix, newText] = split(next);
			const parts = diffWords(oldText, newText);
			const removed = parts
				.filter((p) => !p.added)
				.map((p) => (p.removed ? t.inverse(p.value) : p.value))
				.join("");
			const added = parts
				.filter((p) => !p.removed)
				.map((p) => (p.added ? t.inverse(p.value) : p.value))
				.join("");
			out.push(t.fg("toolDiffRemoved", oldPrefix + removed), t.fg("toolDiffAdded", newPrefix + added));
			i++;
			continue;
		}
		if (row.startsWith("+")) out.push(t.fg("toolDiffAdded", row));
		else if (row.startsWith("-")) out.push(t.fg("toolDiffRemoved", row));
		else out.push(t.fg("toolDiffContext", row));
	}
	return out;
}

/** `-12 text` → [`-12 `, `text`]. */
function split(row: string): [string, string] {
	const m = /^([-+ ]\s*\d*\s?)(.*)$/.exec(row);
	return m ? [m[1]!, m[2]!] : [row.slice(0, 1), row.slice(1)];
}
