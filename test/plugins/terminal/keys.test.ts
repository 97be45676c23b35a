/**
 * Keys as the panel's shell receives them: whatever protocol the person's terminal reports keys in (classic,
 * Kitty's, modifyOtherKeys), the shell gets what a classic xterm sends.
 */
import { afterEach, expect, test } from "bun:test";
import { setKittyProtocolActive } from "@earendil-works/pi-tui";
import { keyBytes } from "../../../src/plugins/terminal/tui-keys.ts";

const normal = { applicationCursorKeys: false, bracketedPaste: false };
const app = { applicationCursorKeys: true, bracketedPaste: true };

afterEach(() => setKittyProtocolActive(false));

test("classic keys and text go as they came", () => {
	for (const data of [
		"a",
		"A",
		"hello",
		"é",
		"日本",
		"\r",
		"\t",
		"\x7f",
		"\x03",
		"\x1b",
		"\x1b[A",
		"\x1b[3~",
		"\x1bOP",
	]) {
		expect(keyBytes(data, normal)).toBe(data);
	}
	expect(keyBytes("\x1b[1;5C", normal)).toBe("\x1b[1;5C");
	expect(keyBytes("\x1bx", normal)).toBe("\x1bx");
});

test("the Kitty protocol's reports become classic bytes; releases are dropped", () => {
	setKittyProtocolActive(true);
	expect(keyBytes("\x1b[99;5u", normal)).toBe("\x03");
	expect(keyBytes("\x1b[100;5u", normal)).toBe("\x04");
	expect(keyBytes("\x1b[27u", normal)).toBe("\x1b");
	expect(keyBytes("\x1b[13u", normal)).toBe("\r");
	expect(keyBytes("\x1b[9;2u", normal)).toBe("\x1b[Z");
	expect(keyBytes("\x1b[97u", normal)).toBe("a");
	expect(keyBytes("\x1b[97:65;2u", normal)).toBe("A");
	expect(keyBytes("\x1b[120;3u", normal)).toBe("\x1bx");
	expect(keyBytes("\x1b[127;5u", normal)).toBe("\x08");
	expect(keyBytes("\x1b[99;5:3u", normal)).toBe("");
	expect(keyBytes("\x1b[1;5:3A", normal)).toBe("");
	// A key the classic encoding has no bytes for is not passed on as a report.
	expect(keyBytes("\x1b[57441;9u", normal)).toBe("");
});

test("modifyOtherKeys' reports become classic bytes", () => {
	expect(keyBytes("\x1b[27;5;99~", normal)).toBe("\x03");
	expect(keyBytes("\x1b[27;5;13~", normal)).toBe("\r");
});

test("arrows follow the program's cursor key mode; modified ones carry xterm's parameter", () => {
	expect(keyBytes("\x1b[A", app)).toBe("\x1bOA");
	expect(keyBytes("\x1b[D", app)).toBe("\x1bOD");
	expect(keyBytes("\x1b[H", app)).toBe("\x1bOH");
	expect(keyBytes("\x1b[1;5A", app)).toBe("\x1b[1;5A");
	expect(keyBytes("\x1b[5~", app)).toBe("\x1b[5~");
});

test("a paste is bracketed when the program asked for it, text otherwise; escapes in it are taken out", () => {
	const paste = "\x1b[200~ls -la\x1b[201~rm -rf ~\x1b[200~\x1b[201~";
	expect(keyBytes(paste, normal)).toBe("ls -la[201~rm -rf ~[200~");
	expect(keyBytes("\x1b[200~one\ntwo\x1b[201~", app)).toBe("\x1b[200~one\ntwo\x1b[201~");
	expect(keyBytes("\x1b[200~one\ntwo\x1b[201~", normal)).toBe("one\ntwo");
});

test("mouse reports are not the shell's", () => {
	expect(keyBytes("\x1b[<0;10;5M", normal)).toBe("");
});
