/**
 * pi-tui's terminal, for the launcher alone (see `protocol/pi-tui-parts.ts`): loading it loads pi-tui's
 * Unicode tables and native helpers, which the server does not need.
 */
export { ProcessTerminal, type Terminal } from "@earendil-works/pi-tui/dist/terminal.js";
export { parseOscColorResponse } from "@earendil-works/pi-tui/dist/terminal-colors.js";
