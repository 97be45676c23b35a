import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");

/** Runs a script in a fresh process (this one has loaded arktype long ago) and returns what it printed. */
function run(script: string): unknown {
	const out = Bun.spawnSync([process.execPath, "-e", script], { cwd: ROOT, stderr: "pipe" });
	if (out.exitCode !== 0) throw new Error(out.stderr.toString());
	return JSON.parse(out.stdout.toString());
}

test("schemas defined and combined through src/protocol/ark.ts are built, and arktype loaded, on first use", () => {
	const result = run(`
		import { arktypeLoaded, type } from "./src/protocol/ark.ts";
		const Point = type({ x: "number", y: "number" });
		const Shape = type({ kind: "'path'", points: Point.array().atMostLength(3) }).or({ kind: "'dot'", at: Point });
		const Kind = type.enumerated("a", "b");
		const before = arktypeLoaded();
		const refusedBefore = ({}) instanceof type.errors;
		const ok = Shape({ kind: "dot", at: { x: 1, y: 2 } });
		const bad = Shape({ kind: "path", points: [{ x: 1, y: "2" }] });
		console.log(JSON.stringify({
			before, refusedBefore, after: arktypeLoaded(),
			ok, okRefused: ok instanceof type.errors,
			badRefused: bad instanceof type.errors, why: bad.summary,
			kind: Kind.allows("b"), notKind: Kind.allows("c"),
		}));
	`);
	expect(result).toEqual({
		before: false,
		refusedBefore: false,
		after: true,
		ok: { kind: "dot", at: { x: 1, y: 2 } },
		okRefused: false,
		badRefused: true,
		why: expect.stringContaining("points[0].y must be a number"),
		kind: true,
		notKind: false,
	});
});

test("no module imports arktype's values except src/protocol/ark.ts", () => {
	const offenders: string[] = [];
	for (const dir of ["src", "test", "scripts"]) {
		for (const path of new Bun.Glob("**/*.ts").scanSync({ cwd: join(ROOT, dir) })) {
			const file = `${dir}/${path}`;
			if (file === "src/protocol/ark.ts") continue;
			const text = readFileSync(join(ROOT, file), "utf8");
			if (/^import\s+(?!type\b)[^;]*from\s+"arktype(\/[^"]*)?";/m.test(text)) offenders.push(file);
		}
	}
	expect(offenders).toEqual([]);
});
