import { describe, expect, test } from "bun:test";
import { type MousePolicy, OutputFilter } from "../../src/host/output-filter.ts";
import { TerminalModes } from "../../src/host/terminal-modes.ts";

const E = "\x1b";
const filter = (s: string, mouse: MousePolicy = "on") => new OutputFilter({ mouse }).write(s);

/** Sequences by family: what the terminal may see, and what it must never see. */
const ALLOWED: [string, string][] = [
	["text", "hello, wörld 😀 中文"],
	["line controls", "a\r\nb\tc\bd"],
	["SGR", `${E}[0m${E}[1;38;5;140m${E}[38;2;1;2;3m${E}[48:2::1:2:3m${E}[m`],
	["cursor", `${E}[H${E}[12;40H${E}[3A${E}[2B${E}[5C${E}[D${E}[7G${E}[4d${E}[2E${E}[F`],
	["erase and edit", `${E}[2J${E}[K${E}[2K${E}[0J${E}[3X${E}[2P${E}[4@${E}[L${E}[3M`],
	["scroll region", `${E}[1;30r${E}[r${E}[2S${E}[T`],
	["save/restore", `${E}7${E}8${E}[s${E}[u${E}M${E}D${E}E`],
	["cursor style", `${E}[2 q`],
	["fullscreen modes", `${E}[?1049h${E}[?7l${E}[?25l${E}[?2026h${E}[?2026l${E}[?25h${E}[?7h${E}[?1049l`],
	["mouse (policy on)", `${E}[?1000h${E}[?1002h${E}[?1004h${E}[?1006h${E}[?1006l`],
];

const REMOVED: [string, string][] = [
	["OSC 52 clipboard", `${E}]52;c;aGVsbG8=\x07`],
	["OSC 8 hyperlink (the text stays)", `${E}]8;;https://evil.example${E}\\${E}]8;;${E}\\`],
	["OSC 0/1/2 title", `${E}]0;pwned\x07${E}]1;x\x07${E}]2;y${E}\\`],
	["OSC colors", `${E}]10;?\x07${E}]11;rgb:0/0/0\x07${E}]4;1;?\x07${E}]104\x07`],
	["OSC notifications", `${E}]9;hi\x07${E}]777;notify;a;b\x07`],
	["OSC 133 / 1337", `${E}]133;A\x07${E}]1337;File=inline=1:AAAA\x07`],
	["DCS (DECRQSS, sixel, tmux passthrough)", `${E}P$qm${E}\\${E}Pq#0;2;0;0;0${E}\\${E}Ptmux;${E}${E}]52;c;x\x07${E}\\`],
	["APC (kitty graphics)", `${E}_Ga=T,f=100;AAAA${E}\\`],
	["PM and SOS", `${E}^private${E}\\${E}Xstart${E}\\`],
	["8-bit C1", "\x9b6n\x9d0;t\x9c\x90q\x9c\x9ex\x9c\x9fy\x9c\x85\x84\x8d"],
	["C0 controls", "\x00\x01\x05\x07\x0b\x0c\x0e\x0f\x7f"],
	["DSR / cursor report", `${E}[6n${E}[5n${E}[?6n`],
	["DA1/DA2/DA3", `${E}[c${E}[0c${E}[>c${E}[=c`],
	["DECRQM", `${E}[?2026$p${E}[4$p`],
	["window ops and reports", `${E}[14t${E}[18t${E}[8;100;100t${E}[21t`],
	["kitty keyboard", `${E}[?u${E}[>1u${E}[<u${E}[=1;1u`],
	["xterm modifyOtherKeys / XTVERSION", `${E}[>4;2m${E}[>0q`],
	["reset and odd escapes", `${E}c${E}#8${E}(0${E})B${E}=${E}>${E}\\`],
	["ANSI modes (insert, LNM)", `${E}[4h${E}[20h`],
	["launcher-owned private modes", `${E}[?2004h${E}[?2031h${E}[?1h${E}[?1001h${E}[?1005h${E}[?1015h${E}[?9h`],
	["soft reset", `${E}[!p`],
	["cursor style out of range", `${E}[99 q${E}[1;2 q${E}[? q`],
];

describe("output filter: families", () => {
	for (const [name, seq] of ALLOWED) {
		test(`passes ${name}`, () => expect(filter(seq)).toBe(seq));
	}
	for (const [name, seq] of REMOVED) {
		test(`removes ${name}`, () => expect(filter(`a${seq}b`)).toBe("ab"));
	}

	test("the cursor's shape passes and is told to the launcher's modes, every time, which put the terminal's own back", () => {
		const modes = new TerminalModes();
		const f = new OutputFilter({ mouse: "on", observer: modes });
		expect(f.write(`${E}[5 q`)).toBe(`${E}[5 q`);
		expect(modes.restore()).toContain(`${E}[5 q`);
		expect(f.write(`${E}[2 q`)).toBe(`${E}[2 q`);
		// A sequence seen before (its decision cached) still reaches the observer.
		expect(f.write(`${E}[5 q`)).toBe(`${E}[5 q`);
		expect(modes.restore()).toContain(`${E}[5 q`);
		expect(modes.lend()).toContain(`${E}[0 q`);
		expect(modes.cleanup()).toContain(`${E}[0 q`);
		expect(modes.restore()).not.toContain(" q");
	});

	test("mouse modes follow the visitor's policy", () => {
		const all = `${E}[?1000h${E}[?1003h${E}[?1006h`;
		expect(filter(all, "off")).toBe("");
		expect(filter(all, "on")).toBe(`${E}[?1000h${E}[?1006h`);
		expect(filter(all, "all")).toBe(all);
	});

	test("a list of private modes keeps only the allowed ones", () => {
		expect(filter(`${E}[?1049;2004;25h`)).toBe(`${E}[?1049;25h`);
		expect(filter(`${E}[?2004;2031l`)).toBe("");
	});

	test("an endless OSC never emits and never grows the filter's state", () => {
		const f = new OutputFilter();
		expect(f.write(`x${E}]52;c;`)).toBe("x");
		for (let i = 0; i < 1000; i++) expect(f.write("A".repeat(1000))).toBe("");
		expect(f.write("\x07y")).toBe("y");
	});

	test("an overlong CSI is dropped whole", () => {
		expect(filter(`a${E}[${"1;".repeat(100)}mb`)).toBe("ab");
	});

	test("lone surrogates are dropped, pairs split across chunks are kept", () => {
		const f = new OutputFilter();
		expect(f.write("a\ud83d")).toBe("a");
		expect(f.write("\ude00b")).toBe("😀b");
		expect(filter("x\udc00y\ud800z")).toBe("xyz");
	});
});

describe("output filter: sequences split across chunks", () => {
	const cases = [...ALLOWED, ...REMOVED.map(([n, s]): [string, string] => [n, `a${s}b`])];
	for (const [name, seq] of cases) {
		test(`${name}, split at every position`, () => {
			const whole = filter(seq);
			for (let cut = 1; cut < seq.length; cut++) {
				const f = new OutputFilter({ mouse: "on" });
				expect(f.write(seq.slice(0, cut)) + f.write(seq.slice(cut))).toBe(whole);
			}
			const f = new OutputFilter({ mouse: "on" });
			expect([...seq].map((ch) => f.write(ch)).join("")).toBe(whole);
		});
	}
});

/** An independent check of the output: every escape is on the allowlist, no control is outside it. */
function violations(out: string, mouse: MousePolicy): string[] {
	const modes = ["7", "25", "1049", "2026", ...(mouse !== "off" ? ["1000", "1002", "1004", "1006"] : [])];
	if (mouse === "all") modes.push("1003");
	const privateMode = new RegExp(`^\\x1b\\[\\?(?:${modes.join("|")})(?:;(?:${modes.join("|")}))*[hl]`);
	const allowed = [/^\x1b\[[0-9;:]*[mABCDEFGHfdeaJKXP@LMSTrsu`]/, /^\x1b\[[0-9;]* q/, privateMode, /^\x1b[78MDE]/];
	const bad: string[] = [];
	for (let i = 0; i < out.length; i++) {
		const c = out.charCodeAt(i);
		if (c === 0x1b) {
			const rest = out.slice(i, i + 80);
			const m = allowed.map((r) => r.exec(rest)).find((x) => x);
			if (!m) bad.push(JSON.stringify(rest.slice(0, 12)));
			else i += m[0].length - 1;
			continue;
		}
		if (c === 0x09 || c === 0x0a || c === 0x0d || c === 0x08) continue;
		if (c < 0x20 || (c >= 0x7f && c < 0xa0)) bad.push(`control ${c.toString(16)}`);
		if (c >= 0xd800 && c <= 0xdbff) {
			const next = out.charCodeAt(i + 1);
			if (next >= 0xdc00 && next <= 0xdfff) i++;
			else bad.push("lone high surrogate");
		} else if (c >= 0xdc00 && c <= 0xdfff) bad.push("lone low surrogate");
	}
	return bad;
}

describe("output filter: fuzz", () => {
	// A seeded generator, so a failure can be reproduced.
	let seed = 0x2f6b1d;
	const rand = (n: number) => {
		seed = (seed * 1103515245 + 12345) & 0x7fffffff;
		return seed % n;
	};
	const alphabet = [
		E,
		"[",
		"]",
		"?",
		"P",
		"_",
		"^",
		"X",
		"\\",
		"\x07",
		"\x9b",
		"\x9c",
		"\x9d",
		";",
		"1",
		"0",
		"h",
		"l",
		"m",
		"u",
		"c",
		"n",
		"t",
		"q",
		" ",
		"$",
		">",
		"<",
		"=",
		"#",
		"(",
		"\ud83d",
		"\ude00",
		"a",
		"\x00",
		"\x7f",
		"\x85",
		"2",
		"6",
		"7",
		"8",
	];
	const randomText = (len: number) => {
		let s = "";
		for (let i = 0; i < len; i++)
			s += rand(4) === 0 ? String.fromCharCode(rand(0x10000)) : alphabet[rand(alphabet.length)];
		return s;
	};

	test("the checker itself catches what the filter must remove", () => {
		expect(violations(`${E}]52;c;x\x07`, "on").length).toBeGreaterThan(0);
		expect(violations(`${E}[6n`, "on").length).toBeGreaterThan(0);
		expect(violations(`${E}[?1003h`, "on").length).toBeGreaterThan(0);
		expect(violations(randomText(4000), "all").length).toBeGreaterThan(0);
	});

	for (const mouse of ["off", "on", "all"] as const) {
		test(`random input never lets a forbidden sequence through (mouse ${mouse})`, () => {
			for (let round = 0; round < 400; round++) {
				const f = new OutputFilter({ mouse, observer: new TerminalModes() });
				let out = "";
				for (let k = 0; k < 8; k++) out += f.write(randomText(1 + rand(200)));
				const bad = violations(out, mouse);
				if (bad.length) throw new Error(`round ${round}: ${bad.slice(0, 3).join(", ")}`);
			}
		});
	}

	test("random input with links in it: the only link that passes shows its own https address", () => {
		const pieces = [
			`${E}]8;;https://a.example${E}\\`,
			`${E}]8;id=1;https://a.example\x07`,
			"https://a.example",
			`${E}]8;;javascript:x${E}\\`,
			`${E}]8;;${E}\\`,
			`${E}]8;;\x07`,
			`${E}[4m`,
			"\r\n",
		];
		const link = /\x1b\]8;;(https:\/\/[!-~]+?)\x1b\\((?:\x1b\[[0-9;:]*m)*)\1((?:\x1b\[[0-9;:]*m)*)\x1b\]8;;\x1b\\/g;
		let passed = 0;
		for (let round = 0; round < 400; round++) {
			const f = new OutputFilter({ mouse: "on", links: () => true });
			let out = "";
			for (let k = 0; k < 8; k++) {
				let chunk = "";
				for (let p = 0; p < 6; p++) {
					const r = rand(8);
					chunk +=
						r === 0
							? pieces.slice(0, 3).join("") + pieces[4]
							: r < 5
								? pieces[rand(pieces.length)]
								: randomText(rand(20));
				}
				out += f.write(chunk);
			}
			const links = out.match(link)?.length ?? 0;
			passed += links;
			const bad = violations(out.replace(link, "$2$1$3"), "on");
			if (bad.length) throw new Error(`round ${round}: ${bad.slice(0, 3).join(", ")}`);
		}
		expect(passed).toBeGreaterThan(0);
	});

	test("random bytes decoded as UTF-8 (as the worker's output would be)", () => {
		for (let round = 0; round < 200; round++) {
			const bytes = new Uint8Array(512);
			for (let i = 0; i < bytes.length; i++) bytes[i] = rand(256);
			const f = new OutputFilter({ mouse: "on" });
			const out = f.write(new TextDecoder().decode(bytes));
			expect(violations(out, "on")).toEqual([]);
		}
	});
});

describe("terminal modes", () => {
	test("records what the worker enabled and undoes it, then the fixed reset", () => {
		const modes = new TerminalModes();
		const f = new OutputFilter({ mouse: "all", observer: modes });
		f.write(`${E}[?1049h${E}[?7l${E}[?1000h${E}[?1003h${E}[?25l${E}[?1000l`);
		expect([...modes.active()]).toEqual([
			[1049, true],
			[7, false],
			[1003, true],
			[25, false],
		]);
		expect(modes.restore()).toBe(`${E}[?1049h${E}[?7l${E}[?1003h${E}[?25l`);
		const cleanup = modes.cleanup();
		expect(cleanup.startsWith(`${E}[?25h${E}[?1003l${E}[?7h${E}[?1049l`)).toBe(true);
		for (const fixed of [
			"?1000l",
			"?1002l",
			"?1003l",
			"?1006l",
			"?1004l",
			"?7h",
			"?25h",
			"?2026l",
			"0m",
			"r",
			"?1049l",
		]) {
			expect(cleanup).toContain(`${E}[${fixed}`);
		}
		expect(modes.active().size).toBe(0);
	});

	test("on the normal screen (regular mode) the reset keeps the cursor below the content", () => {
		const modes = new TerminalModes();
		const f = new OutputFilter({ mouse: "all", observer: modes });
		f.write(`${E}[?2026h${E}[?25l${E}[?2026l`);
		const cleanup = modes.cleanup();
		// Neither "leave the alternate screen" (which restores a cursor never saved) nor a bare scroll-region
		// reset (which homes the cursor): the region is reset between a cursor save and restore.
		expect(cleanup).not.toContain(`${E}[?1049l`);
		expect(cleanup.endsWith(`${E}7${E}[r${E}8`)).toBe(true);
		expect(cleanup.replace(`${E}7${E}[r${E}8`, "")).not.toContain(`${E}[r`);
		expect(cleanup).toContain(`${E}[?25h`);
		// Once the worker left the alternate screen (a switch to regular mode), it is not left again either.
		f.write(`${E}[?1049h${E}[?1049l`);
		expect(modes.cleanup()).not.toContain(`${E}[?1049l`);
		f.write(`${E}[?1049h`);
		expect(modes.cleanup().endsWith(`${E}[r${E}[?1049l`)).toBe(true);
	});

	test("left without the UI's own exit, a UI on the normal screen gets the cursor below its last row", () => {
		const modes = new TerminalModes();
		const f = new OutputFilter({ mouse: "all", observer: modes });
		expect(modes.abandon().endsWith(`${E}8`)).toBe(true);
		f.write(`${E}[?2026hline${E}[?2026l`);
		expect(modes.abandon().endsWith(`${E}7${E}[r${E}8${E}[999;1H\r\n`)).toBe(true);
		f.write(`${E}[?1049h${E}[?2026hline${E}[?2026l`);
		expect(modes.abandon().endsWith(`${E}[?1049l`)).toBe(true);
	});

	test("modes the filter removed are never recorded", () => {
		const modes = new TerminalModes();
		new OutputFilter({ mouse: "off", observer: modes }).write(`${E}[?1000h${E}[?2004h`);
		expect(modes.active().size).toBe(0);
	});
});

describe("output filter: hyperlinks (OSC 8)", () => {
	const URL = "https://example.com/docs?a=1#b";
	const open = (uri: string, params = "") => `${E}]8;${params};${uri}${E}\\`;
	const CLOSE = `${E}]8;;${E}\\`;
	const links = () => new OutputFilter({ mouse: "on", links: () => true });
	const passed = (text: string, uri = URL) => `${E}]8;;${uri}${E}\\${E}[28m${text}${CLOSE}`;

	test("a link whose text is its https address passes, styled or not, whichever terminator it used", () => {
		expect(links().write(`see ${open(URL)}${URL}${CLOSE} now`)).toBe(`see ${passed(URL)} now`);
		const styled = `${E}[38;5;39m${E}[4m${URL}${E}[24m${E}[39m`;
		expect(links().write(`${E}]8;;${URL}\x07${styled}${E}]8;;\x07`)).toBe(passed(styled));
	});

	test("concealed text is no link's text; text concealed before the link is revealed inside it", () => {
		expect(links().write(`${open(URL)}${E}[8m${URL}${E}[28m${CLOSE}`)).toBe(`${E}[8m${URL}${E}[28m`);
		expect(links().write(`${open(URL)}${E}[1;8m${URL}${CLOSE}`)).toBe(`${E}[1;8m${URL}`);
		// The number 8 as a color is not concealment.
		const colored = `${E}[38;5;8m${E}[48;2;8;8;8m${URL}`;
		expect(links().write(`${open(URL)}${colored}${CLOSE}`)).toBe(passed(colored));
		expect(links().write(`${E}[8m${open(URL)}${URL}${CLOSE}`)).toBe(`${E}[8m${passed(URL)}`);
	});

	test("its parameters (an id) are dropped", () => {
		expect(links().write(`${open(URL, "id=x1")}${URL}${CLOSE}`)).toBe(passed(URL));
	});

	test("a link whose text says something else loses its link and keeps its text", () => {
		expect(links().write(`${open(URL)}the docs${CLOSE}!`)).toBe("the docs!");
		expect(links().write(`${open("https://evil.example")}https://bank.example${CLOSE}`)).toBe("https://bank.example");
		// The address as text plus more, or with a cursor move inside: not the address itself.
		expect(links().write(`${open(URL)}${URL}x${CLOSE}`)).toBe(`${URL}x`);
		expect(links().write(`${open(URL)}${URL.slice(0, 10)}${E}[5C${URL.slice(10)}${CLOSE}`)).toBe(
			`${URL.slice(0, 10)}${E}[5C${URL.slice(10)}`,
		);
	});

	const REFUSED: [string, string][] = [
		["http", "http://example.com"],
		["javascript:", "javascript:alert(1)"],
		["file:", "file:///etc/passwd"],
		["a control in the address", "https://example.com/\x01x"],
		["a space", "https://example.com/a b"],
		["other scripts (lookalikes)", "https://exаmple.com"],
		["a user name in front of the host", "https://bank.example@evil.example/"],
		["no host", "https:///path"],
		["a host written escaped", "https://ex%61mple.com/"],
		["an address too long", `https://example.com/${"a".repeat(2100)}`],
	];
	for (const [name, uri] of REFUSED) {
		test(`refuses ${name}: the text passes without the link`, () => {
			expect(links().write(`a${open(uri)}${uri}${CLOSE}b`)).toBe(`a${visible(uri)}b`);
		});
	}

	test("a link split across chunks anywhere passes whole, once its close arrives", () => {
		const whole = `x${open(URL)}${E}[4m${URL}${E}[24m${CLOSE}y`;
		for (let cut = 1; cut < whole.length; cut++) {
			const f = links();
			expect(f.write(whole.slice(0, cut)) + f.write(whole.slice(cut))).toBe(`x${passed(`${E}[4m${URL}${E}[24m`)}y`);
		}
	});

	test("a link's text waits for its close, but no longer than a line or 2 KiB: then it passes unlinked", () => {
		const f = links();
		expect(f.write(`a${open(URL)}${URL.slice(0, 8)}`)).toBe("a");
		expect(f.write(`${URL.slice(8)}${CLOSE}`)).toBe(passed(URL));
		const long = links();
		expect(long.write(`${open(URL)}${"x".repeat(3000)}`)).toBe("x".repeat(3000));
		expect(long.write(`${CLOSE}z`)).toBe("z");
		const line = links();
		expect(line.write(`${open(URL)}${URL}\r\n`)).toBe(`${URL}\r\n`);
		expect(line.write(CLOSE)).toBe("");
	});

	test("a link opened inside another ends the first unlinked; a close with none open is dropped", () => {
		const other = "https://other.example";
		expect(links().write(`${open(URL)}${URL}${open(other)}${other}${CLOSE}`)).toBe(`${URL}${passed(other, other)}`);
		expect(links().write(`a${CLOSE}b${E}]8;;\x07c`)).toBe("abc");
	});

	test("every other OSC stays removed while links pass, and none passes where the terminal takes no links", () => {
		expect(links().write(`a${E}]52;c;aGVsbG8=\x07${E}]0;title\x07${E}]8;;${E}]52;c;x\x07b`)).toBe("ab");
		expect(filter(`${open(URL)}${URL}${CLOSE}`)).toBe(URL);
	});

	test("reset forgets an open link and its held text", () => {
		const f = links();
		expect(f.write(`${open(URL)}${URL}`)).toBe("");
		f.reset();
		expect(f.write(`${CLOSE}after`)).toBe("after");
	});
});

/** What the terminal shows of an address once the filter dropped its controls. */
function visible(uri: string): string {
	return uri.replace(/[\x00-\x1f]/g, "");
}
