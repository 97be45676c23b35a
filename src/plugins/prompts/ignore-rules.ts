/**
 * The ignore files pi honours in its resource directories (`.gitignore`, `.ignore`, `.fdignore`), with the
 * gitignore rules people use there: `#` comments, `!` to take a path back, an inner `/` to anchor a pattern, a
 * trailing `/` for directories only, and `*`, `?`, `**` and `[…]`. As pi does, a pattern of a subdirectory's
 * file is read relative to that subdirectory, and a leading `/` is dropped. The last matching pattern decides.
 */
import { readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";

const FILES = [".gitignore", ".ignore", ".fdignore"];

interface Rule {
	/** The path itself matches. */
	readonly whole: RegExp;
	/** The path is inside a match (a directory the pattern names). */
	readonly inside: RegExp;
	readonly negate: boolean;
	readonly dirOnly: boolean;
}

/** A glob of gitignore's to the source of a regular expression (one pass; no backtracking-prone nesting). */
function globSource(glob: string): string {
	let out = "";
	for (let i = 0; i < glob.length; i++) {
		const ch = glob[i]!;
		if (ch === "*" && glob[i + 1] === "*") {
			const slashAfter = glob[i + 2] === "/";
			out += slashAfter ? "(?:[^]*/)?" : "[^]*";
			i += slashAfter ? 2 : 1;
		} else if (ch === "*") out += "[^/]*";
		else if (ch === "?") out += "[^/]";
		else if (ch === "[") {
			const close = glob.indexOf("]", i + 2);
			if (close < 0) out += "\\[";
			else {
				const body = glob
					.slice(i + 1, close)
					.replace(/^!/, "^")
					.replace(/\\/g, "\\\\");
				out += `[${body}]`;
				i = close;
			}
		} else if (ch === "\\" && i + 1 < glob.length) out += `\\${glob[++i]}`;
		else out += ch.replace(/[.+^${}()|\]\\/]/g, "\\$&");
	}
	return out;
}

function parseLine(raw: string, prefix: string): Rule | null {
	const line = raw.replace(/(?<!\\)\s+$/, "");
	if (!line || line.startsWith("#")) return null;
	const negate = line.startsWith("!");
	let body = negate ? line.slice(1) : line.startsWith("\\") ? line.slice(1) : line;
	const dirOnly = body.endsWith("/");
	if (dirOnly) body = body.slice(0, -1);
	// pi drops a leading slash before the pattern is read, so `/name` at the top matches at any depth there.
	body = `${prefix}${body.replace(/^\//, "")}`;
	if (!body) return null;
	const anchored = body.includes("/");
	const start = anchored ? "^" : "(?:^|/)";
	try {
		const glob = globSource(body);
		return { whole: new RegExp(`${start}${glob}$`), inside: new RegExp(`${start}${glob}/`), negate, dirOnly };
	} catch {
		return null;
	}
}

export class IgnoreRules {
	readonly #rules: Rule[] = [];

	/** The ignore files of `dir`, whose patterns are relative to it; paths are then asked relative to `root`. */
	addFrom(dir: string, root: string): void {
		const rel = relative(root, dir).split(sep).join("/");
		const prefix = rel ? `${rel}/` : "";
		for (const name of FILES) {
			let text: string;
			try {
				text = readFileSync(join(dir, name), "utf8");
			} catch {
				continue;
			}
			for (const line of text.split(/\r?\n/)) {
				const rule = parseLine(line, prefix);
				if (rule) this.#rules.push(rule);
			}
		}
	}

	/** Whether a path (relative to the root, with `/`) is ignored. */
	ignores(path: string, isDir: boolean): boolean {
		let ignored = false;
		for (const rule of this.#rules) {
			if (rule.negate !== ignored) continue;
			const matches = ((isDir || !rule.dirOnly) && rule.whole.test(path)) || rule.inside.test(path);
			if (matches) ignored = !rule.negate;
		}
		return ignored;
	}
}
