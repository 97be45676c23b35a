/**
 * A page of a file for the viewer, cut out on the session's machine by one script: only the page's lines travel
 * (with the file's size and its first 8 KiB, hex-encoded, to tell a binary file), never the whole file. Without
 * `find`, tail skips to the page (awk reading line by line takes more than twice as long deep in a large file); the
 * search for `find` runs there too, in awk's C locale: letters outside ASCII match only in their own case.
 */
import { ProtocolError } from "../../protocol/codes.ts";
import { type Environment, shellQuote } from "../../server/plugin.ts";
import { MAX_LINE_CHARS, type ReadResult } from "./contract.ts";

/** The viewer reads at most this far into a file looking for a page or a match. */
export const MAX_SCAN_BYTES = 256 * 1024 * 1024;
/** How much of a file's start tells whether it is binary (a NUL, or not UTF-8). */
const BINARY_PROBE_BYTES = 8192;

const PAGE_SCRIPT = `[ -f "$1" ] && [ -r "$1" ] || exit 3
wc -c < "$1" | tr -d ' \\n'
printf '\\n'
head -c ${BINARY_PROBE_BYTES} -- "$1" | od -An -v -tx1 | tr -d ' \\n'
printf '\\n'
if [ -z "$4" ]; then
head -c ${MAX_SCAN_BYTES} -- "$1" | tail -n +"$2" | LC_ALL=C awk -v from="$2" -v limit="$3" '
NR > limit { more = 1; exit }
{ print substr($0, 1, ${MAX_LINE_CHARS * 4}) }
END { print from + 0, more + 0 }'
else
head -c ${MAX_SCAN_BYTES} -- "$1" | P2_FIND="$4" LC_ALL=C awk -v from="$2" -v limit="$3" '
BEGIN { needle = ENVIRON["P2_FIND"] }
!start && NR >= from && index(tolower($0), needle) { start = NR }
start { if (shown == limit) { more = 1; exit } print substr($0, 1, ${MAX_LINE_CHARS * 4}); shown++ }
END { print start + 0, more + 0 }'
fi`;

/** Binary: a NUL or invalid UTF-8 in the first bytes. */
export function looksBinary(head: Uint8Array): boolean {
	if (head.includes(0)) return true;
	try {
		// The last bytes may be a character cut in half: leave them out.
		new TextDecoder("utf-8", { fatal: true }).decode(head.subarray(0, Math.max(0, head.byteLength - 4)));
		return false;
	} catch {
		return true;
	}
}

/** The script's output: the file's size, its first bytes in hex, the page's lines, then "start more". */
export function parsePage(path: string, out: Buffer): ReadResult {
	const sizeEnd = out.indexOf(10);
	const probeEnd = out.indexOf(10, sizeEnd + 1);
	if (sizeEnd < 0 || probeEnd < 0)
		throw new ProtocolError("unavailable", `${path}: the machine's answer was cut short`);
	const size = Number(out.subarray(0, sizeEnd).toString("latin1")) || 0;
	const probe = Buffer.from(out.subarray(sizeEnd + 1, probeEnd).toString("latin1"), "hex");
	if (looksBinary(probe)) return { path, size, binary: true, line: null, lines: [], more: false };
	const rows = new TextDecoder().decode(out.subarray(probeEnd + 1)).split("\n");
	if (rows.at(-1) === "") rows.pop();
	const trailer = /^(\d+) ([01])$/.exec(rows.pop() ?? "");
	if (!trailer) throw new ProtocolError("unavailable", `${path}: the machine's answer was cut short`);
	const start = Number(trailer[1]);
	const lines = rows.map((row) => row.replace(/\r$/, "").slice(0, MAX_LINE_CHARS));
	// A file longer than is looked in goes on past the page.
	const more = trailer[2] === "1" || size > MAX_SCAN_BYTES;
	return { path, size, binary: false, line: start > 0 ? start : null, lines, more };
}

/**
 * `limit` lines of the file at `real` from `line`, or from the first line at or after it that contains `find`
 * (any case); lines are cut at MAX_LINE_CHARS. null: not a readable file.
 */
export async function readPage(
	env: Environment,
	cwd: string,
	file: { real: string; rel: string },
	line: number,
	limit: number,
	find?: string,
): Promise<ReadResult | null> {
	const chunks: Uint8Array[] = [];
	const words = [file.real, String(line), String(limit), find?.toLowerCase() ?? ""];
	const end = await env.exec({
		command: `sh -c ${shellQuote(PAGE_SCRIPT)} p2 ${words.map(shellQuote).join(" ")} 2>/dev/null`,
		cwd,
		onData: (chunk) => chunks.push(chunk),
	});
	return end.exitCode === 0 ? parsePage(file.rel, Buffer.concat(chunks)) : null;
}
