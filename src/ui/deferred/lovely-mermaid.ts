/** Diagrams, carried in the UI bundle as text and evaluated at the first Mermaid block (see server/bundle.ts). */
export { render, toAnsi } from "lovely-mermaid";
