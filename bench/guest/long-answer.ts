/** A long Markdown answer with prose, lists and code, as tokens of a few characters. */
export function longAnswer(tokens: number): string[] {
	const words = "The function reads the file, splits it into lines and returns the ones that match. ".split(/(?<= )/);
	const out: string[] = [];
	for (let i = 0; out.length < tokens; i++) {
		if (i % 60 === 30) out.push("\n\n```ts\n", "const x = read(path);\n", "return x.split('\\n');\n", "```\n\n");
		else if (i % 40 === 20) out.push("\n- item one\n", "- item two\n\n");
		else out.push(words[i % words.length]!);
	}
	return out.slice(0, tokens);
}
