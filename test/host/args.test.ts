import { describe, expect, test } from "bun:test";
import { parseLaunchArgs } from "../../src/host/args.ts";

describe("the command line", () => {
	test("--fork takes a session id or prefix and excludes the other ways to choose a session", () => {
		expect(parseLaunchArgs(["--fork", "ab12"]).fork).toBe("ab12");
		expect(() => parseLaunchArgs(["--fork", "../x"])).toThrow('--fork: "../x" is not a session id');
		expect(() => parseLaunchArgs(["--fork"])).toThrow("--fork needs a value");
		for (const other of [["--continue"], ["--resume"], ["--session", "aaaaaaaa-0000-4000-8000-000000000001"]]) {
			expect(() => parseLaunchArgs(["--fork", "ab12", ...other])).toThrow(
				"--fork excludes --session, --continue and --resume",
			);
		}
	});

	test("--tui-mode chooses pi's renderer for this run; another word is refused with the valid ones", () => {
		expect(parseLaunchArgs([]).tuiMode).toBeUndefined();
		expect(parseLaunchArgs(["--tui-mode", "regular"]).tuiMode).toBe("regular");
		expect(parseLaunchArgs(["--tui-mode=fullscreen"]).tuiMode).toBe("fullscreen");
		expect(() => parseLaunchArgs(["--tui-mode", "scrollback"])).toThrow(
			'Invalid TUI mode "scrollback". Valid values: regular, fullscreen',
		);
		expect(() => parseLaunchArgs(["--tui-mode"])).toThrow("--tui-mode needs a value");
	});

	test("pi's flags that make no sense here are refused with the reason; the first words are a draft", () => {
		expect(() => parseLaunchArgs(["--print", "hi"])).toThrow("--print is not supported by p2: p2 has no print mode.");
		expect(parseLaunchArgs(["fix", "the", "bug"]).draft).toBe("fix the bug");
		expect(parseLaunchArgs(["https://p2.example.com/", "hi"])).toMatchObject({
			url: "https://p2.example.com",
			draft: "hi",
		});
	});
});

describe("pi's @file arguments and --models", () => {
	test("@words are files to attach, as typed; the other words are the first message's draft", () => {
		expect(parseLaunchArgs(["@notes.md", "summarize", "@src/a b.ts", "please"])).toMatchObject({
			files: ["notes.md", "src/a b.ts"],
			draft: "summarize please",
		});
		expect(parseLaunchArgs(["https://p2.example.com", "@x.png", "look"])).toMatchObject({
			url: "https://p2.example.com",
			files: ["x.png"],
			draft: "look",
		});
		expect(parseLaunchArgs(["hi"]).files).toEqual([]);
	});

	test("--models takes pi's comma-separated patterns", () => {
		expect(parseLaunchArgs(["--models", "anthropic/*, *sonnet*:high,gpt-4o"]).models).toEqual([
			"anthropic/*",
			"*sonnet*:high",
			"gpt-4o",
		]);
		expect(parseLaunchArgs([]).models).toBeUndefined();
	});
});

describe("the command line, as parseArgs reads it", () => {
	test("--flag=value works for every option that takes one, and short flags combine", () => {
		expect(
			parseLaunchArgs([
				"--thinking=high",
				"--model=anthropic/claude",
				"--provider=anthropic",
				"--name=My task",
				"--theme=light",
				"--session-id=aaaaaaaa-0000-4000-8000-000000000001",
				"-n",
				"Renamed",
			]),
		).toMatchObject({
			thinking: "high",
			model: "anthropic/claude",
			provider: "anthropic",
			name: "Renamed",
			theme: "light",
			session: "aaaaaaaa-0000-4000-8000-000000000001",
		});
		expect(parseLaunchArgs(["--use-theme", "dark"]).theme).toBe("dark");
		expect(parseLaunchArgs(["-c", "--verbose", "--no-themes"])).toMatchObject({
			continue: true,
			verbose: true,
			noThemes: true,
		});
		expect(parseLaunchArgs(["--name=-dash-"]).name).toBe("-dash-");
		expect(parseLaunchArgs(["--", "--model", "x"]).draft).toBe("--model x");
	});

	test("every refusal keeps its words", () => {
		const refused = (argv: string[]) => {
			try {
				parseLaunchArgs(argv);
			} catch (error) {
				return (error as Error).message;
			}
			return "accepted";
		};
		expect(refused(["--thinking", "hot"])).toBe(
			'Invalid thinking level "hot". Valid values: off, minimal, low, medium, high, xhigh, max',
		);
		expect(refused(["--session", "nope"])).toBe('--session: "nope" is not a session id');
		expect(refused(["--model"])).toBe("--model needs a value");
		expect(refused(["--name", "--verbose"])).toBe("--name needs a value");
		expect(refused(["--continue=yes"])).toBe("--continue takes no value");
		expect(refused(["--bogus"])).toBe("unknown option --bogus (see p2 --help)");
		expect(refused(["-x"])).toBe("unknown option -x (see p2 --help)");
		expect(refused(["-p", "hi"])).toBe("-p is not supported by p2: p2 has no print mode.");
		expect(refused(["--models", ","])).toBe("--models needs at least one pattern");
		expect(refused(["@", "hi"])).toBe("@ needs a file name (@notes.md)");
		expect(refused(Array.from({ length: 21 }, (_, i) => `@f${i}`))).toBe("at most 20 @files at once");
		expect(refused(["--owner-link", "a", "--join", "b"])).toBe("--owner-link and --join exclude each other");
		expect(refused(["-c", "-r"])).toBe("--continue and --resume exclude each other");
		expect(refused(["--session", "aaaaaaaa-0000-4000-8000-000000000001", "-c"])).toBe(
			"--session excludes --continue and --resume",
		);
	});
});
