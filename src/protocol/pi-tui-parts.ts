/**
 * The few pi-tui modules the launcher and the server use, by their own files: pi-tui's package index loads
 * every component (and Markdown), which the launcher's start and the server never need. Every deep import of
 * pi-tui goes through here, so a new pi-tui layout is one file to change.
 */
export { fuzzyFilter } from "@earendil-works/pi-tui/dist/fuzzy.js";
export { TUI_KEYBINDINGS } from "@earendil-works/pi-tui/dist/keybindings.js";
export { isKeyRelease, Key, type KeyId, matchesKey } from "@earendil-works/pi-tui/dist/keys.js";
export { ProcessTerminal, type Terminal } from "@earendil-works/pi-tui/dist/terminal.js";
export { parseOscColorResponse } from "@earendil-works/pi-tui/dist/terminal-colors.js";
