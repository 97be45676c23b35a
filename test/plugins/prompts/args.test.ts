// biome-ignore-all lint/suspicious/noTemplateCurlyInString: pi's placeholders are the strings under test.
import { describe, expect, test } from "bun:test";
import { ExpansionTooLong, splitArgs, substituteArgs } from "../../../src/plugins/prompts/args.ts";

/**
 * Each row is what pi 1.6.0 itself answered for the input (its parseCommandArgs and substituteArgs, run
 * outside this repository), so these compare p2 with pi, not with a reading of pi.
 */
const SPLIT: [string, string[]][] = [
	["", []],
	["a b c", ["a", "b", "c"]],
	["  a   b  ", ["a", "b"]],
	['"API compatibility" x', ["API compatibility", "x"]],
	["'single quoted' y", ["single quoted", "y"]],
	["doesn't matter", ["doesn't", "matter"]],
	['"unclosed quote here', ['"unclosed', "quote", "here"]],
	["'unclosed", ["'unclosed"]],
	['a "', ["a", '"']],
	['"the \\"fast\\" path"', ['the "fast" path']],
	["'it\\'s'", ["it's"]],
	['"a\\\'b"', ["a\\'b"]],
	['back\\slash "q\\z"', ["back\\slash", "q\\z"]],
	["\"\" x ''", ["", "x", ""]],
	['"ab"cd', ["abcd"]],
	["\"ab\"'cd'", ["ab'cd'"]],
	['x"y z"', ['x"y', 'z"']],
	['"a \\"b', ['"a', '\\"b']],
	['"a\\\\"b"', ['a\\"b']],
	["tab\tsep\nnew line", ["tab", "sep", "new", "line"]],
	['"multi\nline" arg', ["multi\nline", "arg"]],
	["'a \"b\" c'", ['a "b" c']],
	["\"a 'b c'", ['"a', "b c"]],
	['it\'s "a b"', ["it's", "a b"]],
	['"a "b "c', ["a b", '"c']],
	["'x 'y\" z\"", ['x y"', 'z"']],
	['" " " "', [" ", " "]],
	['\\" "q"', ['\\"', "q"]],
];

const SUBSTITUTE: [string, string[], string][] = [
	["Review $1 and $2", ["x"], "Review x and "],
	["All: $@", ["a", "b c"], "All: a b c"],
	["All: $ARGUMENTS.", [], "All: ."],
	["${1:-default} ${2:-two}", ["", "given"], "default given"],
	["${@:-nothing}", [], "nothing"],
	["${@:-nothing}", ["a", "b"], "a b"],
	["${ARGUMENTS:-none}", [], "none"],
	["${@:2}", ["a", "b", "c"], "b c"],
	["${@:2:1}", ["a", "b", "c"], "b"],
	["${@:0}", ["a", "b"], "a b"],
	["${@:5}", ["a"], ""],
	["$0 $10", ["1", "2", "3", "4", "5", "6", "7", "8", "9", "ten"], " ten"],
	["no recursion $1", ["$2 $@"], "no recursion $2 $@"],
	["${1:-$2}", [], "$2"],
	["price $5.00 and $", ["a"], "price .00 and $"],
	["${x:-y} $$1", ["a"], "${x:-y} $a"],
	["${1:-a}b}", [], "ab}"],
	["${@:1:0}|${@:2:5}", ["a", "b", "c"], "|b c"],
];

describe("arguments split as pi splits them", () => {
	test.each(SPLIT)("%j", (input, words) => {
		expect(splitArgs(input)).toEqual(words);
	});
});

describe("bounded work", () => {
	test("an expansion longer than the limit is refused before it is built", () => {
		expect(() => substituteArgs("$@ ".repeat(1000), ["x".repeat(1000)], 100_000)).toThrow(ExpansionTooLong);
		expect(substituteArgs("$1 $1", ["ab"], 5)).toBe("ab ab");
	});
});

describe("placeholders replaced as pi replaces them", () => {
	test.each(SUBSTITUTE)("%j with %j", (template, args, expanded) => {
		expect(substituteArgs(template, args)).toBe(expanded);
	});
});
