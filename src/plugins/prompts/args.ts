/**
 * pi's prompt-template arguments: how `/name args` is split into words (shell-like quoting with pi's edge
 * cases) and how `$1`, `$@`, `$ARGUMENTS`, `${N:-default}`, `${@:-default}`, `${@:N}` and `${@:N:L}` are
 * replaced in the template's text. Written from pi's documented behaviour and checked against pi 1.6.0's own
 * results (test/plugins/prompts/args.test.ts).
 */

const QUOTES = new Set(["'", '"']);

/**
 * The words of an argument string. A quote opens only at the start of a word (so `doesn't` is one word with
 * its apostrophe); inside quotes a backslash before the same quote keeps that quote as text, and any other
 * backslash stays as typed; an empty pair of quotes is an empty word; a quote never closed is plain text.
 */
export function splitArgs(text: string): string[] {
	const words: string[] = [];
	let word = "";
	let started = false;
	let i = 0;
	while (i < text.length) {
		const ch = text[i]!;
		if (!started && QUOTES.has(ch)) {
			// Linear overall: a word's closing quote is looked for past it only, and once one is never found
			// no later word can start with that quote (it would have closed this one).
			const close = closingQuote(text, i);
			if (close >= 0) {
				word = unescapeQuoted(text.slice(i + 1, close), ch);
				started = true;
				i = close + 1;
				continue;
			}
			// Never closed: the quote is an ordinary character of the word.
		}
		if (/\s/.test(ch)) {
			if (started) words.push(word);
			word = "";
			started = false;
		} else {
			word += ch;
			started = true;
		}
		i++;
	}
	if (started) words.push(word);
	return words;
}

/** Where the quote opened at `open` closes (a backslash before the same quote does not close it), or -1. */
function closingQuote(text: string, open: number): number {
	const quote = text[open]!;
	for (let i = open + 1; i < text.length; i++) {
		if (text[i] === "\\" && text[i + 1] === quote) i++;
		else if (text[i] === quote) return i;
	}
	return -1;
}

function unescapeQuoted(inside: string, quote: string): string {
	return inside.split(`\\${quote}`).join(quote);
}

/**
 * The template's text with its placeholders replaced, in one pass: what an argument or a default brings in is
 * never replaced again. A missing positional argument is empty; `${N:-d}` takes `d` when the argument is
 * missing or empty; `${@:N}` counts from 1 (0 is taken as 1).
 */
export function substituteArgs(template: string, args: readonly string[], limit = Number.POSITIVE_INFINITY): string {
	const all = args.join(" ");
	const pattern = /\$\{(\d+|@|ARGUMENTS):-([^}]*)\}|\$\{@:(\d+)(?::(\d+))?\}|\$(\d+|@|ARGUMENTS)/g;
	let length = template.length;
	const value = (target?: string, fallback?: string, from?: string, count?: string, simple?: string): string => {
		if (target !== undefined) {
			const given = target === "@" || target === "ARGUMENTS" ? all : (args[Number(target) - 1] ?? "");
			return given === "" ? (fallback ?? "") : given;
		}
		if (from !== undefined) {
			const start = Math.max(0, Number(from) - 1);
			const end = count === undefined ? undefined : start + Number(count);
			return args.slice(start, end).join(" ");
		}
		if (simple === "@" || simple === "ARGUMENTS") return all;
		return args[Number(simple) - 1] ?? "";
	};
	return template.replace(pattern, (m, target, fallback, from, count, simple) => {
		const text = value(target, fallback, from, count, simple);
		// Many placeholders times long arguments: refused before it is built, not after.
		length += text.length - m.length;
		if (length > limit) throw new ExpansionTooLong(limit);
		return text;
	});
}

export class ExpansionTooLong extends Error {
	constructor(limit: number) {
		super(`the expanded text is longer than ${limit} characters`);
		this.name = "ExpansionTooLong";
	}
}
