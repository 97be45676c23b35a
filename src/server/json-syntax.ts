/**
 * Where a JSON text stops being JSON. Bun's `JSON.parse` says only "Unexpected token", without a position; a
 * person fixing a config file needs the line. This scanner follows RFC 8259 and reports the first place it
 * cannot go on from, as 1-based line and column.
 */
export interface JsonSyntaxError {
	readonly line: number;
	readonly column: number;
	/** What was found there, e.g. `unexpected ","` or `unexpected end of file`. */
	readonly reason: string;
}

class Stop extends Error {
	constructor(readonly at: number) {
		super("stop");
	}
}

const MAX_DEPTH = 512;

/** The first syntax error of `text`, or undefined when it is valid JSON. */
export function findJsonSyntaxError(text: string): JsonSyntaxError | undefined {
	let i = 0;
	const fail = (): never => {
		throw new Stop(i);
	};
	const space = () => {
		while (i < text.length && (text[i] === " " || text[i] === "\t" || text[i] === "\n" || text[i] === "\r")) i++;
	};
	const literal = (word: string) => {
		for (const ch of word) {
			if (text[i] !== ch) fail();
			i++;
		}
	};
	const digits = () => {
		const start = i;
		while (i < text.length && text[i]! >= "0" && text[i]! <= "9") i++;
		if (i === start) fail();
	};
	const number = () => {
		if (text[i] === "-") i++;
		if (text[i] === "0") i++;
		else digits();
		if (text[i] === ".") {
			i++;
			digits();
		}
		if (text[i] === "e" || text[i] === "E") {
			i++;
			if (text[i] === "+" || text[i] === "-") i++;
			digits();
		}
	};
	const string = () => {
		i++;
		for (;;) {
			if (i >= text.length) fail();
			const ch = text[i]!;
			if (ch === '"') {
				i++;
				return;
			}
			if (ch < " ") fail();
			if (ch === "\\") {
				i++;
				const esc = text[i];
				if (esc === "u") {
					for (let k = 0; k < 4; k++) {
						i++;
						if (!/[0-9a-fA-F]/.test(text[i] ?? "")) fail();
					}
				} else if (esc === undefined || !'"\\/bfnrt'.includes(esc)) fail();
			}
			i++;
		}
	};
	const value = (depth: number): void => {
		space();
		if (depth > MAX_DEPTH) fail();
		const ch = text[i];
		if (ch === "{") {
			i++;
			space();
			if (text[i] === "}") {
				i++;
				return;
			}
			for (;;) {
				space();
				if (text[i] !== '"') fail();
				string();
				space();
				if (text[i] !== ":") fail();
				i++;
				value(depth + 1);
				space();
				if (text[i] === ",") {
					i++;
					continue;
				}
				if (text[i] === "}") {
					i++;
					return;
				}
				fail();
			}
		}
		if (ch === "[") {
			i++;
			space();
			if (text[i] === "]") {
				i++;
				return;
			}
			for (;;) {
				value(depth + 1);
				space();
				if (text[i] === ",") {
					i++;
					continue;
				}
				if (text[i] === "]") {
					i++;
					return;
				}
				fail();
			}
		}
		if (ch === '"') return string();
		if (ch === "t") return literal("true");
		if (ch === "f") return literal("false");
		if (ch === "n") return literal("null");
		if (ch === "-" || (ch !== undefined && ch >= "0" && ch <= "9")) return number();
		fail();
	};
	try {
		value(0);
		space();
		if (i < text.length) fail();
		return undefined;
	} catch (error) {
		if (!(error instanceof Stop)) throw error;
		return locate(text, error.at);
	}
}

function locate(text: string, at: number): JsonSyntaxError {
	let line = 1;
	let lineStart = 0;
	for (let k = 0; k < at && k < text.length; k++) {
		if (text[k] === "\n") {
			line++;
			lineStart = k + 1;
		}
	}
	const found = text.codePointAt(at);
	const reason =
		found === undefined
			? "unexpected end of file"
			: found < 0x20
				? `unexpected control character U+${found.toString(16).toUpperCase().padStart(4, "0")}`
				: `unexpected ${JSON.stringify(String.fromCodePoint(found))}`;
	return { line, column: at - lineStart + 1, reason };
}
