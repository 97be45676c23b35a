/**
 * A command's `when`: a boolean expression over context names (`chat && editorEmpty && !overlay`), with
 * `!`, `&&`, `||` and parentheses. Its specificity is the number of names it mentions: a command that says
 * more about where it applies wins over one that says less.
 */

export interface When {
	readonly source: string;
	/** How many context names the expression mentions. */
	readonly specificity: number;
	/** The names it requires to be present (a positive term on every path): `overlay:x` in `overlay:x && y`. */
	readonly required: ReadonlySet<string>;
	/** Every name it mentions, positive or negated. */
	readonly names: ReadonlySet<string>;
	test(contexts: ReadonlySet<string>): boolean;
}

type Node =
	| { kind: "name"; name: string }
	| { kind: "not"; of: Node }
	| { kind: "and" | "or"; left: Node; right: Node }
	| { kind: "true" };

const NAME = /^[A-Za-z][A-Za-z0-9_.-]*(?::[A-Za-z0-9_.-]+)?/;

export class WhenError extends Error {
	override name = "WhenError";
}

export function parseWhen(source: string | undefined): When {
	const text = source?.trim() ?? "";
	let at = 0;
	const skip = () => {
		while (at < text.length && text[at] === " ") at++;
	};
	const fail = (what: string): never => {
		throw new WhenError(`when "${text}": ${what} at ${at + 1}`);
	};
	const primary = (): Node => {
		skip();
		if (text[at] === "!") {
			at++;
			return { kind: "not", of: primary() };
		}
		if (text[at] === "(") {
			at++;
			const inner = or();
			skip();
			if (text[at] !== ")") fail("expected )");
			at++;
			return inner;
		}
		const m = NAME.exec(text.slice(at));
		if (!m) return fail("expected a context name");
		at += m[0].length;
		return { kind: "name", name: m[0] };
	};
	const and = (): Node => {
		let left = primary();
		for (;;) {
			skip();
			if (!text.startsWith("&&", at)) return left;
			at += 2;
			left = { kind: "and", left, right: primary() };
		}
	};
	const or = (): Node => {
		let left = and();
		for (;;) {
			skip();
			if (!text.startsWith("||", at)) return left;
			at += 2;
			left = { kind: "or", left, right: and() };
		}
	};
	let root: Node = { kind: "true" };
	if (text) {
		root = or();
		skip();
		if (at < text.length) fail("unexpected text");
	}
	const names = new Set<string>();
	const collect = (node: Node) => {
		if (node.kind === "name") names.add(node.name);
		else if (node.kind === "not") collect(node.of);
		else if (node.kind === "and" || node.kind === "or") {
			collect(node.left);
			collect(node.right);
		}
	};
	collect(root);
	let specificity = 0;
	const count = (node: Node) => {
		if (node.kind === "name") specificity++;
		else if (node.kind === "not") count(node.of);
		else if (node.kind === "and" || node.kind === "or") {
			count(node.left);
			count(node.right);
		}
	};
	count(root);
	const required = (node: Node): Set<string> => {
		if (node.kind === "name") return new Set([node.name]);
		if (node.kind === "and") return new Set([...required(node.left), ...required(node.right)]);
		if (node.kind === "or") {
			const right = required(node.right);
			return new Set([...required(node.left)].filter((n) => right.has(n)));
		}
		return new Set();
	};
	const test = (node: Node, contexts: ReadonlySet<string>): boolean => {
		switch (node.kind) {
			case "true":
				return true;
			case "name":
				return contexts.has(node.name);
			case "not":
				return !test(node.of, contexts);
			case "and":
				return test(node.left, contexts) && test(node.right, contexts);
			case "or":
				return test(node.left, contexts) || test(node.right, contexts);
		}
	};
	return { source: text, specificity, required: required(root), names, test: (contexts) => test(root, contexts) };
}

/**
 * Whether two expressions can hold at once, checked over the names they mention (at most 2^12 assignments)
 * with the screens and roles as the exclusive groups they are.
 */
export function canOverlap(a: When, b: When, exclusive: readonly (readonly string[])[]): boolean {
	const names = [...new Set([...a.names, ...b.names])];
	if (names.length > 12) return true;
	for (let mask = 0; mask < 1 << names.length; mask++) {
		const set = new Set(names.filter((_, i) => mask & (1 << i)));
		if (exclusive.some((group) => group.filter((n) => set.has(n)).length > 1)) continue;
		// `overlay:x` implies `overlay`.
		if ([...set].some((n) => n.startsWith("overlay:")) && names.includes("overlay") && !set.has("overlay")) continue;
		if (a.test(set) && b.test(set)) return true;
	}
	return false;
}
