import { describe, expect, test } from "bun:test";
import { copyToClipboard } from "../../src/host/clipboard.ts";
import { splitCommand } from "../../src/host/launcher-actions.ts";
import { privilegedKeys } from "../../src/host/privileged-keys.ts";

const linux = { platform: "linux", windowsKeys: false } as const;
const ACTIONS = ["app.message.copy", "app.editor.external", "app.suspend"];

describe("the launcher's own keys", () => {
	test("pi's defaults, the person's own bindings, and nothing for ids without an action", () => {
		const keys = privilegedKeys(linux, {}, ACTIONS);
		expect(keys.match("\x18")).toBe("app.message.copy");
		expect(keys.match("\x07")).toBe("app.editor.external");
		expect(keys.match("\x1a")).toBe("app.suspend");
		// Ctrl+V (paste) has no launcher action yet: the key goes to the UI.
		expect(keys.match("\x16")).toBeUndefined();
		const remapped = privilegedKeys(linux, { "app.message.copy": ["f9"] }, ACTIONS);
		expect(remapped.match("\x18")).toBeUndefined();
		expect(remapped.match("\x1b[20~")).toBe("app.message.copy");
	});

	test("a key the person gave to another action is that action's; pi's own shared defaults stay the launcher's", () => {
		const keys = privilegedKeys(linux, { "tui.editor.undo": ["ctrl+z"] }, ACTIONS);
		expect(keys.match("\x1a")).toBeUndefined();
		expect(keys.lost).toEqual(["ctrl+z: tui.editor.undo (your binding) wins over app.suspend"]);
		// pi binds Ctrl+G to transcript search's "next" too; the launcher keeps it (the UI suspends during search).
		expect(privilegedKeys(linux, {}, ACTIONS).lost).toEqual([]);
	});

	test("the editor command is split like a shell would, without one", () => {
		expect(splitCommand("code --wait")).toEqual(["code", "--wait"]);
		expect(splitCommand(`"/opt/My Editor/bin/ed" -n 'a b'`)).toEqual(["/opt/My Editor/bin/ed", "-n", "a b"]);
		expect(splitCommand("vim $(rm -rf ~)")).toEqual(["vim", "$(rm", "-rf", "~)"]);
	});
});

describe("the launcher's clipboard", () => {
	test("the platform's tool first; OSC 52 by the launcher only when headless or remote; otherwise a reason", async () => {
		const tried: string[][] = [];
		const written: string[] = [];
		const base = {
			write: (d: string) => written.push(d),
			run: async (argv: string[]) => {
				tried.push(argv);
				return argv[0] === "xsel";
			},
		};
		expect(await copyToClipboard("hi", { ...base, env: { DISPLAY: ":0" }, platform: "linux" })).toBe("native");
		expect(tried).toEqual([
			["xclip", "-selection", "clipboard"],
			["xsel", "--clipboard", "--input"],
		]);
		expect(await copyToClipboard("héllo", { ...base, env: {}, platform: "linux" })).toBe("terminal");
		expect(written).toEqual([`\x1b]52;c;${Buffer.from("héllo").toString("base64")}\x07`]);
		const none = { write: base.write, run: async () => false };
		await expect(copyToClipboard("x", { ...none, env: { DISPLAY: ":0" }, platform: "linux" })).rejects.toThrow(
			"install xclip or xsel",
		);
		expect(
			await copyToClipboard("x", { ...none, env: { DISPLAY: ":0", SSH_TTY: "/dev/pts/1" }, platform: "linux" }),
		).toBe("terminal");
		await expect(copyToClipboard("x".repeat(200_000), { ...none, env: {}, platform: "linux" })).rejects.toThrow(
			"too long",
		);
	});
});

describe("addresses for the browser", () => {
	test("https only, no credentials, no control characters", async () => {
		const { externalUrl } = await import("../../src/host/launcher-actions.ts");
		expect(externalUrl("https://auth.example/authorize?x=1")).toBe("https://auth.example/authorize?x=1");
		expect(externalUrl("http://auth.example/")).toBeUndefined();
		expect(externalUrl("https://user:pw@auth.example/")).toBeUndefined();
		expect(externalUrl("javascript:alert(1)")).toBeUndefined();
		expect(externalUrl("file:///etc/passwd")).toBeUndefined();
		expect(externalUrl("https://a.example/\x1b]0;x\x07")).toBeUndefined();
		expect(externalUrl("https://a.example/ b")).toBeUndefined();
		// http only to a loopback port the person forwarded (/ports), never another host or port.
		const forwarded = (port: number) => port === 8123;
		expect(externalUrl("http://127.0.0.1:8123/app?x=1", forwarded)).toBe("http://127.0.0.1:8123/app?x=1");
		expect(externalUrl("http://127.0.0.1:8124/", forwarded)).toBeUndefined();
		expect(externalUrl("http://127.0.0.1/", forwarded)).toBeUndefined();
		expect(externalUrl("http://localhost:8123/", forwarded)).toBeUndefined();
		expect(externalUrl("http://127.0.0.2:8123/", forwarded)).toBeUndefined();
		expect(externalUrl("http://u:p@127.0.0.1:8123/", forwarded)).toBeUndefined();
		expect(externalUrl("http://127.0.0.1:8123/")).toBeUndefined();
	});
});

describe("pasting from the clipboard", () => {
	test("the platform's reader; the text delivered as a bracketed paste without control characters", async () => {
		const { readClipboardText, asBracketedPaste } = await import("../../src/host/clipboard.ts");
		const tried: string[][] = [];
		const text = await readClipboardText({
			env: { WAYLAND_DISPLAY: "wayland-0" },
			platform: "linux",
			read: async (argv) => {
				tried.push(argv);
				return "pasted\r\nline\x1b[31m two\x07";
			},
		});
		expect(tried).toEqual([["wl-paste", "--no-newline", "--type", "text"]]);
		expect(asBracketedPaste(text)).toBe("\x1b[200~pasted\nline[31m two\x1b[201~");
		await expect(readClipboardText({ env: {}, platform: "linux" })).rejects.toThrow("no clipboard is available here");
	});
});

describe("an image on the clipboard", () => {
	test("found by its type on Wayland or X11, read as bytes, bounded", async () => {
		const { readClipboardImage } = await import("../../src/host/clipboard.ts");
		const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
		const calls: string[] = [];
		const read = async (argv: string[]) => {
			calls.push(argv.join(" "));
			if (argv.includes("TARGETS")) return new TextEncoder().encode("TARGETS\nimage/png\ntext/plain\n");
			return png;
		};
		const found = await readClipboardImage({ env: { DISPLAY: ":0" }, platform: "linux", maxBytes: 100, read });
		expect(found).toEqual({ bytes: png, mimeType: "image/png" });
		expect(calls).toEqual(["xclip -selection clipboard -t TARGETS -o", "xclip -selection clipboard -t image/png -o"]);
		const textOnly = async () => new TextEncoder().encode("text/plain\nUTF8_STRING");
		expect(
			await readClipboardImage({ env: { WAYLAND_DISPLAY: "w" }, platform: "linux", maxBytes: 100, read: textOnly }),
		).toBeUndefined();
		await expect(readClipboardImage({ env: { DISPLAY: ":0" }, platform: "linux", maxBytes: 3, read })).rejects.toThrow(
			"larger than 25 MiB",
		);
	});
});

describe("files copied in a file manager", () => {
	test("their paths come from text/uri-list on Wayland or X11, and from Finder's file URL on macOS", async () => {
		const { readClipboardFiles, filePathsOf } = await import("../../src/host/clipboard.ts");
		const enc = (s: string) => new TextEncoder().encode(s);
		const calls: string[] = [];
		const read = async (argv: string[]) => {
			calls.push(argv.join(" "));
			if (argv.includes("--list-types")) return enc("text/uri-list\ntext/plain\n");
			return enc("# a comment\r\nfile:///home/ana/My%20Notes.md\r\nfile://otherhost/etc/passwd\r\nhttps://x/y\r\n");
		};
		expect(await readClipboardFiles({ env: { WAYLAND_DISPLAY: "w" }, platform: "linux", read })).toEqual([
			"/home/ana/My Notes.md",
		]);
		expect(calls).toEqual(["wl-paste --list-types", "wl-paste --type text/uri-list"]);
		const textOnly = async () => enc("text/plain\nUTF8_STRING");
		expect(await readClipboardFiles({ env: { DISPLAY: ":0" }, platform: "linux", read: textOnly })).toEqual([]);
		const finder = async (argv: string[]) => (argv[0] === "osascript" ? enc("/Users/ana/report.pdf\n") : undefined);
		expect(await readClipboardFiles({ env: {}, platform: "darwin", read: finder })).toEqual(["/Users/ana/report.pdf"]);
		expect(await readClipboardFiles({ env: {}, platform: "darwin", read: async () => undefined })).toEqual([]);
		const many = Array.from({ length: 30 }, (_, i) => `file:///tmp/f${i}`).join("\n");
		expect(filePathsOf(many)).toHaveLength(10);
	});
});

describe("the clipboard on macOS and Windows", () => {
	const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 7, 8, 9]);
	const enc = (s: string) => new TextEncoder().encode(s);

	test("macOS: the clipboard's PNG from AppleScript, printed as hex; anything else is no image", async () => {
		const { readClipboardImage, MAC_IMAGE_COMMAND } = await import("../../src/host/clipboard.ts");
		const calls: string[][] = [];
		const hex = `«data PNGf${Buffer.from(png).toString("hex").toUpperCase()}»\n`;
		const read = async (argv: string[]) => {
			calls.push(argv);
			return enc(hex);
		};
		expect(await readClipboardImage({ env: {}, platform: "darwin", maxBytes: 100, read })).toEqual({
			bytes: png,
			mimeType: "image/png",
		});
		expect(calls).toEqual([MAC_IMAGE_COMMAND]);
		expect(MAC_IMAGE_COMMAND).toEqual(["osascript", "-e", "the clipboard as «class PNGf»"]);
		// No image on the clipboard: AppleScript fails (no output), or prints something else.
		expect(await readClipboardImage({ env: {}, platform: "darwin", maxBytes: 100, read: async () => undefined })).toBe(
			undefined,
		);
		const text = async () => enc("«data utf8616263»");
		expect(await readClipboardImage({ env: {}, platform: "darwin", maxBytes: 100, read: text })).toBeUndefined();
		await expect(readClipboardImage({ env: {}, platform: "darwin", maxBytes: 4, read })).rejects.toThrow(
			"larger than 25 MiB",
		);
	});

	test("Windows: the clipboard's image from PowerShell as base64 PNG; copied files from Explorer as full paths", async () => {
		const { readClipboardImage, readClipboardFiles, WINDOWS_IMAGE_COMMAND, WINDOWS_FILES_COMMAND } = await import(
			"../../src/host/clipboard.ts"
		);
		const calls: string[][] = [];
		const read = async (argv: string[]) => {
			calls.push(argv);
			if (argv === WINDOWS_FILES_COMMAND)
				return enc("C:\\Users\\ana\\report.pdf\r\n\\\\server\\share\\notes.md\r\nnot a path\r\n");
			return enc(`${Buffer.from(png).toString("base64")}\r\n`);
		};
		expect(await readClipboardImage({ env: {}, platform: "win32", maxBytes: 100, read })).toEqual({
			bytes: png,
			mimeType: "image/png",
		});
		expect(await readClipboardFiles({ env: {}, platform: "win32", read })).toEqual([
			"C:\\Users\\ana\\report.pdf",
			"\\\\server\\share\\notes.md",
		]);
		expect(calls).toEqual([WINDOWS_IMAGE_COMMAND, WINDOWS_FILES_COMMAND]);
		// PowerShell, without a profile, in a single-threaded apartment (the Windows clipboard needs one).
		for (const command of [WINDOWS_IMAGE_COMMAND, WINDOWS_FILES_COMMAND]) {
			expect(command.slice(0, 4)).toEqual(["powershell", "-NoProfile", "-STA", "-Command"]);
		}
		expect(WINDOWS_IMAGE_COMMAND[4]).toContain("[System.Windows.Forms.Clipboard]::GetImage()");
		expect(WINDOWS_FILES_COMMAND[4]).toContain("Get-Clipboard -Format FileDropList");
		// Nothing on the clipboard: PowerShell prints nothing.
		expect(await readClipboardImage({ env: {}, platform: "win32", maxBytes: 100, read: async () => enc("") })).toBe(
			undefined,
		);
	});
});

describe("the browser and the editor on each platform", () => {
	test("the browser opener's command line: open, rundll32 (an address with & stays one argument), xdg-open", async () => {
		const { browserCommand } = await import("../../src/host/actions/open-url.ts");
		const url = "https://example.org/a?b=1&c=2";
		expect(browserCommand(url, "darwin")).toEqual(["open", url]);
		expect(browserCommand(url, "win32")).toEqual(["rundll32", "url.dll,FileProtocolHandler", url]);
		expect(browserCommand(url, "linux")).toEqual(["xdg-open", url]);
	});

	test("the editor: the person's choice first, then notepad on Windows and nano elsewhere", async () => {
		const { editorCommand, preferencePaths } = await import("../../src/host/local-preferences.ts");
		const { mkdtempSync, rmSync } = await import("node:fs");
		const { tmpdir } = await import("node:os");
		const { join } = await import("node:path");
		const home = mkdtempSync(join(tmpdir(), "p2-editor-"));
		try {
			const paths = preferencePaths({ HOME: home });
			expect(editorCommand(paths, { HOME: home }, "win32")).toBe("notepad");
			expect(editorCommand(paths, { HOME: home }, "darwin")).toBe("nano");
			expect(editorCommand(paths, { HOME: home, EDITOR: "code --wait" }, "win32")).toBe("code --wait");
			expect(splitCommand('"C:\\Program Files\\Notepad++\\notepad++.exe" -multiInst')).toEqual([
				"C:\\Program Files\\Notepad++\\notepad++.exe",
				"-multiInst",
			]);
		} finally {
			rmSync(home, { recursive: true, force: true });
		}
	});
});
