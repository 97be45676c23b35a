/**
 * The few pi-tui modules the launcher and the server use, by their own files: pi-tui's package index loads
 * every component (and Markdown), which the launcher's start and the server never need. These import nothing
 * of the terminal's (its Unicode tables, its native helpers): the server loads them at its start. The
 * launcher's terminal parts are in `host/pi-tui-terminal.ts`. Every deep import of pi-tui goes through one of
 * the two, so a new pi-tui layout is two files to change.
 */
export { fuzzyFilter } from "@earendil-works/pi-tui/dist/fuzzy.js";
export { TUI_KEYBINDINGS } from "@earendil-works/pi-tui/dist/keybindings.js";
export { isKeyRelease, Key, type KeyId, matchesKey } from "@earendil-works/pi-tui/dist/keys.js";
