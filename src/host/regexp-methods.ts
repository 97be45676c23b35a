/**
 * RegExp.prototype's `[Symbol.match]`, `[Symbol.replace]` and `[Symbol.split]` as the specification writes
 * them, on the built-in `exec`; the guest's worker installs them before lockdown.
 *
 * Why: lockdown freezes RegExp.prototype, and JavaScriptCore then leaves its native paths for good and runs
 * the generic steps for every `match`, `replace` and `split` with a regular expression: each reads the flags
 * through eight getters on a prototype it can no longer cache, and `split` builds a new sticky splitter per
 * call and tries it at every position. In the locked-down worker that was 5 to 300 times slower per call, a
 * third of a keystroke's work and a tenth of a streamed answer's.
 *
 * For a plain regular expression (a RegExp whose prototype is RegExp.prototype and whose only own property
 * is `lastIndex`), nothing the specification's steps read can run code: the prototype is frozen and its
 * getters are built in. So these run the same steps, with the same calls of `exec`, replacer functions,
 * conversions and `lastIndex` writes, in the same order, and skip the reads. Anything else (a subclass, an own
 * `exec` or `flags`, a proxy, another object) goes to the built-in method. After lockdown no RegExp can change
 * its flags (`compile` is removed), so a split's searcher is kept for its source and flags.
 */

type Method = (this: unknown, ...args: unknown[]) => unknown;

export interface RegExpMethods {
	readonly match: Method;
	readonly replace: Method;
	readonly split: Method;
}

const MAX_LENGTH = 2 ** 53 - 1;
const MAX_SEARCHERS = 256;
const SEARCH_FLAGS = [
	["d", "hasIndices"],
	["i", "ignoreCase"],
	["m", "multiline"],
	["s", "dotAll"],
	["u", "unicode"],
	["v", "unicodeSets"],
] as const;

export function regExpMethods(): RegExpMethods {
	const proto = RegExp.prototype;
	const NativeRegExp = RegExp;
	const { apply, getPrototypeOf, ownKeys } = Reflect;
	const getter = (name: string): Method | undefined =>
		Object.getOwnPropertyDescriptor(proto, name)?.get as Method | undefined;
	const exec = proto.exec as Method;
	const builtIn = {
		match: proto[Symbol.match] as Method,
		replace: proto[Symbol.replace] as Method,
		split: proto[Symbol.split] as Method,
	};
	const sourceOf = getter("source")!;
	const globalOf = getter("global")!;
	const unicodeOf = getter("unicode")!;
	const unicodeSetsOf = getter("unicodeSets");
	/** The flags a split's searcher keeps (all but `g` and `y`), in the order `flags` writes them. */
	const searchFlags = SEARCH_FLAGS.flatMap(([letter, name]) => {
		const get = getter(name);
		return get ? [[letter, get] as const] : [];
	});
	/**
	 * Split searchers by source and flags: a regular expression literal is a new object each time its code runs
	 * (`text.split(/\n/)` in a function), so keeping them per object kept nothing. At most MAX_SEARCHERS.
	 */
	const searchers = new Map<string, RegExp>();
	/** Each real RegExp seen, with the flags these steps need (a RegExp's flags never change once `compile` is gone). */
	const seen = new WeakMap<object, { readonly global: boolean; readonly fullUnicode: boolean }>();

	/**
	 * The flags of a RegExp whose steps run no code, else undefined: a real one (the `source` getter checks, once),
	 * of RegExp.prototype, with no own property but `lastIndex`.
	 */
	const plainFlags = (rx: unknown) => {
		if (typeof rx !== "object" || rx === null || rx === proto) return undefined;
		let flags = seen.get(rx);
		if (flags === undefined) {
			try {
				apply(sourceOf, rx, []);
			} catch {
				return undefined;
			}
			flags = {
				global: apply(globalOf, rx, []) === true,
				fullUnicode:
					apply(unicodeOf, rx, []) === true || (unicodeSetsOf !== undefined && apply(unicodeSetsOf, rx, []) === true),
			};
			seen.set(rx, flags);
		}
		if (getPrototypeOf(rx) !== proto) return undefined;
		const keys = ownKeys(rx);
		return keys.length === 1 && keys[0] === "lastIndex" ? flags : undefined;
	};
	const run = (rx: RegExp, s: string) => apply(exec, rx, [s]) as RegExpExecArray | null;

	const match = (target: unknown, string: unknown): unknown => {
		const flags = plainFlags(target);
		if (flags === undefined) return apply(builtIn.match, target, [string]);
		const rx = target as RegExp;
		const s = `${string as string}`;
		if (!flags.global) return run(rx, s);
		const fullUnicode = flags.fullUnicode;
		rx.lastIndex = 0;
		const found: string[] = [];
		for (;;) {
			const result = run(rx, s);
			if (result === null) return found.length === 0 ? null : found;
			const matched = `${result[0]}`;
			found.push(matched);
			if (matched === "") rx.lastIndex = advance(s, toLength(rx.lastIndex), fullUnicode);
		}
	};

	const replace = (target: unknown, string: unknown, replaceValue: unknown): unknown => {
		const flags = plainFlags(target);
		if (flags === undefined) return apply(builtIn.replace, target, [string, replaceValue]);
		const rx = target as RegExp;
		const s = `${string as string}`;
		const functional = typeof replaceValue === "function";
		const template = functional ? "" : `${replaceValue as string}`;
		const { global, fullUnicode } = flags;
		if (global) rx.lastIndex = 0;
		const results: RegExpExecArray[] = [];
		for (;;) {
			const result = run(rx, s);
			if (result === null) break;
			results.push(result);
			if (!global) break;
			if (`${result[0]}` === "") rx.lastIndex = advance(s, toLength(rx.lastIndex), fullUnicode);
		}
		let out = "";
		let next = 0;
		for (const result of results) {
			const captureCount = Math.max(toLength(result.length) - 1, 0);
			const matched = `${result[0]}`;
			const position = Math.max(Math.min(toIntegerOrInfinity(result.index), s.length), 0);
			const captures: (string | undefined)[] = [];
			for (let n = 1; n <= captureCount; n++) {
				const capture = result[n];
				captures.push(capture === undefined ? undefined : `${capture}`);
			}
			const groups: unknown = result.groups;
			let replacement: string;
			if (functional) {
				const args: unknown[] = [matched, ...captures, position, s];
				if (groups !== undefined) args.push(groups);
				replacement = `${apply(replaceValue as Method, undefined, args) as string}`;
			} else {
				replacement = substitution(
					matched,
					s,
					position,
					captures,
					groups === undefined ? undefined : Object(groups),
					template,
				);
			}
			if (position >= next) {
				out += s.slice(next, position) + replacement;
				next = position + matched.length;
			}
		}
		return next >= s.length ? out : out + s.slice(next);
	};

	const split = (target: unknown, string: unknown, limit: unknown): unknown => {
		const flags = plainFlags(target);
		if (flags === undefined) return apply(builtIn.split, target, [string, limit]);
		const rx = target as RegExp;
		const s = `${string as string}`;
		const fullUnicode = flags.fullUnicode;
		let flagText = "";
		for (const [letter, get] of searchFlags) if (apply(get, rx, []) === true) flagText += letter;
		const key = `${flagText}/${apply(sourceOf, rx, []) as string}`;
		let searcher = searchers.get(key);
		if (!searcher) {
			// Where the specification tries a sticky copy at each position, a global copy searches forward
			// from it: the first position where the sticky copy would match is where the search finds it.
			searcher = new NativeRegExp(rx, `${flagText}g`);
			if (searchers.size >= MAX_SEARCHERS) searchers.clear();
			searchers.set(key, searcher);
		}
		const parts: unknown[] = [];
		const lim = limit === undefined ? 2 ** 32 - 1 : (limit as number) >>> 0;
		if (lim === 0) return parts;
		const size = s.length;
		if (size === 0) {
			searcher.lastIndex = 0;
			const z = run(searcher, s);
			if (z !== null && z.index === 0) return parts;
			parts.push(s);
			return parts;
		}
		let p = 0;
		let q = 0;
		while (q < size) {
			searcher.lastIndex = q;
			const z = run(searcher, s);
			if (z === null || z.index >= size) break;
			const at = z.index;
			const e = Math.min(searcher.lastIndex, size);
			if (e === p) {
				q = advance(s, at, fullUnicode);
				continue;
			}
			parts.push(s.slice(p, at));
			if (parts.length === lim) return parts;
			p = e;
			for (let i = 1; i < z.length; i++) {
				parts.push(z[i]);
				if (parts.length === lim) return parts;
			}
			q = p;
		}
		parts.push(s.slice(p));
		return parts;
	};

	return {
		match(string) {
			return match(this, string);
		},
		replace(string, replaceValue) {
			return replace(this, string, replaceValue);
		},
		split(string, limit) {
			return split(this, string, limit);
		},
	};
}

/** Replaces RegExp.prototype's three methods with these (before lockdown hardens them), named as the built-ins are. */
export function installRegExpMethods(): void {
	const methods = regExpMethods();
	const proto = RegExp.prototype;
	for (const [symbol, method, name, length] of [
		[Symbol.match, methods.match, "[Symbol.match]", 1],
		[Symbol.replace, methods.replace, "[Symbol.replace]", 2],
		[Symbol.split, methods.split, "[Symbol.split]", 2],
	] as const) {
		Object.defineProperty(method, "name", { value: name });
		Object.defineProperty(method, "length", { value: length });
		Object.defineProperty(proto, symbol, { value: method, writable: true, enumerable: false, configurable: true });
	}
}

/** AdvanceStringIndex: one code unit on, or one code point when the expression is Unicode-aware. */
function advance(s: string, index: number, fullUnicode: boolean): number {
	if (!fullUnicode || index + 1 >= s.length) return index + 1;
	const first = s.charCodeAt(index);
	if (first < 0xd800 || first > 0xdbff) return index + 1;
	const second = s.charCodeAt(index + 1);
	return second < 0xdc00 || second > 0xdfff ? index + 1 : index + 2;
}

function toIntegerOrInfinity(value: unknown): number {
	const n = +(value as number);
	if (Number.isNaN(n) || n === 0) return 0;
	return Math.trunc(n);
}

function toLength(value: unknown): number {
	const n = toIntegerOrInfinity(value);
	return n <= 0 ? 0 : Math.min(n, MAX_LENGTH);
}

/** GetSubstitution: `$$`, `$&`, `` $` ``, `$'`, `$n`, `$nn` and `$<name>` in a replacement template. */
function substitution(
	matched: string,
	s: string,
	position: number,
	captures: readonly (string | undefined)[],
	groups: Record<string, unknown> | undefined,
	template: string,
): string {
	const dollar = template.indexOf("$");
	if (dollar === -1) return template;
	let out = template.slice(0, dollar);
	let i = dollar;
	while (i < template.length) {
		const c = template[i];
		if (c !== "$" || i + 1 >= template.length) {
			out += c;
			i++;
			continue;
		}
		const next = template[i + 1]!;
		if (next === "$") {
			out += "$";
			i += 2;
		} else if (next === "&") {
			out += matched;
			i += 2;
		} else if (next === "`") {
			out += s.slice(0, position);
			i += 2;
		} else if (next === "'") {
			out += s.slice(Math.min(position + matched.length, s.length));
			i += 2;
		} else if (next >= "0" && next <= "9") {
			const second = template[i + 2];
			let digits = second !== undefined && second >= "0" && second <= "9" ? 2 : 1;
			let index = Number(template.slice(i + 1, i + 1 + digits));
			if (digits === 2 && index > captures.length) {
				digits = 1;
				index = Number(next);
			}
			if (index >= 1 && index <= captures.length) out += captures[index - 1] ?? "";
			else out += template.slice(i, i + 1 + digits);
			i += 1 + digits;
		} else if (next === "<") {
			const close = template.indexOf(">", i);
			if (close === -1 || groups === undefined) {
				out += "$<";
				i += 2;
			} else {
				const value = groups[template.slice(i + 2, close)];
				out += value === undefined ? "" : `${value as string}`;
				i = close + 1;
			}
		} else {
			out += "$";
			i++;
		}
	}
	return out;
}
