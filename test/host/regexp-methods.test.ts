/**
 * The worker's RegExp methods against the built-ins of this (unfrozen) realm: the same results, the same
 * `lastIndex` after, the same errors, the same calls of replacer functions and conversions in the same order,
 * over expressions and strings chosen for the specification's corners (empty matches, surrogate pairs,
 * captures that did not take part, named groups, every `$` pattern, limits).
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { regExpMethods } from "../../src/host/regexp-methods.ts";

const ours = regExpMethods();
const builtIn = {
	match: RegExp.prototype[Symbol.match],
	replace: RegExp.prototype[Symbol.replace],
	split: RegExp.prototype[Symbol.split],
};

const PATTERNS: [string, string][] = [
	["a", ""],
	["a", "g"],
	["a", "y"],
	["a", "gy"],
	["a", "gi"],
	["", ""],
	["", "g"],
	["", "gu"],
	["x*", "g"],
	["x*", ""],
	["(a)|(b)", "g"],
	["(a)|(b)", ""],
	["(?<word>\\w+)", "g"],
	["(?<word>\\w+)", ""],
	["(?<first>a)(?<second>b)?", "g"],
	["\\s+", ""],
	["\\s+", "g"],
	["\\r\\n|\\r|\\n", ""],
	["\\x1b\\[[0-9;]*m", "g"],
	["^(?:\\x1b\\]133;[ABC](?:\\x07|\\x1b\\\\))+", ""],
	["\\x1b\\[([\\d;]*)m", ""],
	[".", "gu"],
	[".", "g"],
	["(?:)", "gu"],
	["\\uD83D", "g"],
	["\\uD83D", "gu"],
	["[\\uD800-\\uDFFF]", "g"],
	["(?=b)", "g"],
	["(?<=a)", "g"],
	["^", "gm"],
	["$", "gm"],
	["b*", "gy"],
	["(\\d)(\\d)?(\\d)?(\\d)?(\\d)?(\\d)?(\\d)?(\\d)?(\\d)?(\\d)?(\\d)?", "g"],
	["\\p{L}+", "gu"],
	["[\\p{L}--[a-z]]", "gv"],
	["a.c", "gs"],
	["A", "gid"],
];

const STRINGS = [
	"",
	"a",
	"aaa",
	"abcabc",
	"b a  b\ta\n",
	"line one\r\nline two\rthree\nfour\n\n",
	"\x1b[31mred\x1b[0m plain \x1b[1;32mbold\x1b[0m",
	"\x1b]133;A\x07\x1b]133;B\x1b\\prompt",
	"😀a😀b😀",
	"\uD83Dx\uDE00",
	"12345678901",
	"Ünïcödé wörds ab",
	"a\nc abc ABC",
	"xxaxx",
];

const TEMPLATES = [
	"",
	"-",
	"$$",
	"$&",
	"$`",
	"$'",
	"$0",
	"$00",
	"$1",
	"$01",
	"$2",
	"$10",
	"$11",
	"$99",
	"$<word>",
	"$<first>-$<second>",
	"$<missing>",
	"$<unclosed",
	"$",
	"a$",
	"$x",
	"[$1|$2|$&]",
	"$$1",
];

type Outcome = { value?: unknown; error?: string; lastIndex: unknown; calls: unknown[] };

/** Runs `method` on a fresh copy of the expression and records what it returned or threw, and what it called. */
function outcome(
	method: (this: unknown, ...args: unknown[]) => unknown,
	pattern: [string, string],
	args: (calls: unknown[]) => unknown[],
	lastIndex = 0,
): Outcome {
	const rx = new RegExp(pattern[0], pattern[1]);
	rx.lastIndex = lastIndex;
	const calls: unknown[] = [];
	try {
		const value = method.apply(rx, args(calls));
		return { value, lastIndex: rx.lastIndex, calls };
	} catch (error) {
		return { error: (error as Error).constructor.name, lastIndex: rx.lastIndex, calls };
	}
}

function same(
	name: "match" | "replace" | "split",
	pattern: [string, string],
	args: (calls: unknown[]) => unknown[],
	lastIndex = 0,
) {
	const expected = outcome(builtIn[name] as never, pattern, args, lastIndex);
	const got = outcome(ours[name], pattern, args, lastIndex);
	expect({ name, pattern, from: lastIndex, ...got }).toEqual({ name, pattern, from: lastIndex, ...expected });
}

describe("the worker's RegExp methods, beside the built-ins", () => {
	test("match: every expression on every string, from lastIndex 0 and from inside the string", () => {
		for (const pattern of PATTERNS) {
			for (const s of STRINGS) {
				for (const lastIndex of [0, 2, 100]) same("match", pattern, () => [s], lastIndex);
			}
		}
	});

	test("replace: every template, and a replacer function that sees each match's arguments", () => {
		for (const pattern of PATTERNS) {
			for (const s of STRINGS) {
				for (const template of TEMPLATES) same("replace", pattern, () => [s, template]);
				same("replace", pattern, (calls) => [
					s,
					(...args: unknown[]) => {
						calls.push(args);
						return `<${calls.length}>`;
					},
				]);
				same("replace", pattern, () => [s, "$1"], 3);
			}
		}
	});

	test("split: every expression on every string, with limits", () => {
		for (const pattern of PATTERNS) {
			for (const s of STRINGS) {
				for (const limit of [undefined, 0, 1, 2, 3, -1, 2 ** 32 + 1, "2", Number.NaN]) {
					same("split", pattern, () => [s, limit], 5);
				}
			}
		}
	});

	test("conversions run in the specification's order, and their errors are the built-ins'", () => {
		const order = (label: string, value: string) => (calls: unknown[]) => ({
			toString() {
				calls.push(label);
				return value;
			},
		});
		for (const pattern of PATTERNS.slice(0, 12)) {
			same("replace", pattern, (calls) => [order("string", "aXa")(calls), order("template", "[$&]")(calls)]);
			same("split", pattern, (calls) => [
				order("string", "a,b,a")(calls),
				{
					valueOf() {
						calls.push("limit");
						return 2;
					},
				},
			]);
			same("match", pattern, (calls) => [order("string", "aaa")(calls)]);
			same("match", pattern, () => [Symbol("no")]);
			same("replace", pattern, () => ["a", Symbol("no")]);
			same("split", pattern, () => ["a", 10n]);
			same("replace", pattern, () => [
				"aa",
				() => {
					throw new RangeError("from the replacer");
				},
			]);
		}
	});

	test("anything but a plain RegExp goes to the built-in: a subclass, an own exec, own flags, a proxy, another object", () => {
		class Sub extends RegExp {}
		let execs = 0;
		const candidates: (() => unknown)[] = [
			() => new Sub("a", "g"),
			() =>
				Object.defineProperty(/a/g, "exec", {
					value(this: RegExp, s: string) {
						execs++;
						return RegExp.prototype.exec.call(this, s);
					},
				}),
			// Its own flags say it is not global (the other way round, the built-in would loop for ever).
			() => Object.defineProperty(/a/g, "flags", { value: "" }),
			() => new Proxy(/a/g, {}),
			() => ({ lastIndex: 0 }),
			() => RegExp.prototype,
		];
		for (const make of candidates) {
			for (const name of ["match", "replace", "split"] as const) {
				const run = (method: (this: unknown, ...args: unknown[]) => unknown) => {
					try {
						return { value: method.call(make(), "a-a", "$&$&") };
					} catch (error) {
						return { error: (error as Error).constructor.name };
					}
				};
				expect({ name, ...run(ours[name]) }).toEqual({ name, ...run(builtIn[name] as never) });
			}
		}
		expect(execs).toBeGreaterThan(0);
	});

	test("a frozen expression's lastIndex cannot be written: the same TypeError", () => {
		for (const flags of ["g", "y", ""]) {
			for (const name of ["match", "replace"] as const) {
				const run = (method: (this: unknown, ...args: unknown[]) => unknown) => {
					const rx = Object.freeze(new RegExp("a", flags));
					try {
						return { value: method.call(rx, "aa", "b") };
					} catch (error) {
						return { error: (error as Error).constructor.name };
					}
				};
				expect(run(ours[name])).toEqual(run(builtIn[name] as never));
			}
		}
	});

	test("installed, they replace the built-ins on RegExp.prototype, named as they are", () => {
		const script = `
			import { installRegExpMethods } from ${JSON.stringify(join(import.meta.dir, "..", "..", "src", "host", "regexp-methods.ts"))};
			const p = RegExp.prototype;
			const before = [p[Symbol.match], p[Symbol.replace], p[Symbol.split]];
			installRegExpMethods();
			const after = [p[Symbol.match], p[Symbol.replace], p[Symbol.split]];
			console.log(JSON.stringify({
				replaced: after.map((m, i) => m !== before[i]),
				native: after.map((m) => Function.prototype.toString.call(m).includes("[native code]")),
				names: after.map((m) => m.name),
				lengths: after.map((m) => m.length),
				split: "a-b".split(/-/),
			}));
		`;
		const ran = Bun.spawnSync([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
		expect(ran.stderr.toString()).toBe("");
		expect(JSON.parse(ran.stdout.toString())).toEqual({
			replaced: [true, true, true],
			native: [false, false, false],
			names: ["[Symbol.match]", "[Symbol.replace]", "[Symbol.split]"],
			lengths: [1, 2, 2],
			split: ["a", "b"],
		});
	});
});
