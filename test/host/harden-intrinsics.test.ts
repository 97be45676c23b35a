import { describe, expect, test } from "bun:test";
import { join } from "node:path";

const HARDEN = join(import.meta.dir, "..", "..", "src", "host", "harden-intrinsics.ts");

/** Runs a script after hardening, in its own process (this test runner's prototypes stay as they are). */
function hardened(script: string): { out: string; code: number } {
	const source = `import { hardenIntrinsics } from ${JSON.stringify(HARDEN)};\nhardenIntrinsics();\n${script}`;
	const proc = Bun.spawnSync([process.execPath, "--eval", source], { stdout: "pipe", stderr: "pipe" });
	return { out: proc.stdout.toString() + proc.stderr.toString(), code: proc.exitCode };
}

describe("the launcher's frozen intrinsics", () => {
	test("a walk into __proto__ or constructor.prototype cannot add to or change what every object inherits", () => {
		const { out, code } = hardened(`
			const results = [];
			const attempt = (name, fn) => { try { fn(); results.push(name + ":allowed"); } catch { results.push(name + ":refused"); } };
			const parsed = JSON.parse('{"__proto__": {"x": 1}}');
			attempt("own __proto__ walk", () => { const t = {}; t["__proto__"]["externalEditor"] = "sh"; });
			attempt("constructor.prototype walk", () => { const t = {}; t["constructor"]["prototype"]["downloads"] = "~/.ssh"; });
			attempt("array prototype", () => { [].__proto__.evil = 1; });
			attempt("string prototype", () => { "".__proto__.evil = 1; });
			attempt("function prototype", () => { (() => {}).__proto__.evil = 1; });
			attempt("replace toString", () => { Object.prototype.toString = () => "x"; });
			console.log(results.join(","));
			console.log("inherited:" + [({}).externalEditor, ({}).downloads, [].evil, "".evil].join("|") + ":" + Object.hasOwn(parsed, "__proto__"));
		`);
		expect(code).toBe(0);
		expect(out).toContain(
			"own __proto__ walk:refused,constructor.prototype walk:refused,array prototype:refused,string prototype:refused,function prototype:refused,replace toString:refused",
		);
		expect(out).toContain("inherited:|||:true");
	});

	test("ordinary code keeps working: own properties that shadow inherited ones, errors that name themselves, classes", () => {
		const { out, code } = hardened(`
			const o = {}; o.toString = () => "mine"; o.constructor = "c"; o.valueOf = () => 7;
			class Failure extends Error { constructor(m) { super(m); this.name = "Failure"; } }
			const e = new Failure("boom");
			const plain = new Error("x"); plain.message = "changed"; plain.name = "Renamed";
			const a = [1, 2]; a.toString = () => "arr";
			function f() {} f.toString = () => "fn";
			console.log([String(o), o.constructor, o + 1, e.name, e.message, String(e), plain.name, plain.message, String(a), String(f)].join(","));
			console.log(JSON.stringify({ a: [1, { b: 2 }] }), /x(y)/.exec("xy")[1], [3, 1, 2].sort().join(""), new Map([[1, 2]]).get(1));
		`);
		expect(code).toBe(0);
		expect(out).toContain("mine,c,8,Failure,boom,Failure: boom,Renamed,changed,arr,fn");
		expect(out).toContain('{"a":[1,{"b":2}]} y 123 2');
	});
});
