/**
 * A terminal emulator without a screen (the terminal panel's), carried in the UI bundle as text and evaluated
 * when a panel first opens (see server/bundle.ts).
 */
import "../xterm-prelude.ts";

export { Terminal } from "@xterm/headless";
