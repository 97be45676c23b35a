import { describe, expect, test } from "bun:test";
import { rankFiles } from "../../../src/plugins/path-completion/rank.ts";

const entries = [
	"src/",
	"src/parser.ts",
	"src/deep/",
	"src/deep/parse",
	"docs/",
	"docs/parse.md",
	"parse/",
	"test/",
	"test/xparse.ts",
	"notes/",
	"notes/parsing-ideas/",
	"notes/parsing-ideas/a.md",
	"lib/",
	"lib/p-a-r-s-e.js",
].map((path) => ({ path, dir: path.endsWith("/") }));
const ranked = (query: string) => rankFiles(entries, query).map((e) => e.path);

describe("@'s order, as pi's", () => {
	test("the name equal, then starting with, then containing the query; folders ahead; shallower first; fuzzy last", () => {
		expect(ranked("parse")).toEqual([
			"parse/",
			"src/deep/parse",
			"docs/parse.md",
			"src/parser.ts",
			"test/xparse.ts",
			// Fuzzy matches, below every substring match.
			"lib/p-a-r-s-e.js",
			"notes/parsing-ideas/",
			"notes/parsing-ideas/a.md",
		]);
		expect(ranked("PARSING")).toEqual(["notes/parsing-ideas/", "notes/parsing-ideas/a.md"]);
	});

	test("a query with a folder looks inside it; no query lists the shallowest first", () => {
		expect(ranked("src/pa")).toEqual(["src/parser.ts", "src/deep/parse"]);
		expect(ranked("src/")).toEqual(["src/deep/", "src/parser.ts"]);
		expect(ranked("").slice(0, 3)).toEqual(["lib/", "src/", "docs/"]);
	});
});
