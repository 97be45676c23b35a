/** Syntax highlighting, carried in the UI bundle as text and evaluated at the first code block (see server/bundle.ts). */
export { common, createLowlight } from "lowlight";
