import { Marked, type Token } from "@earendil-works/pi-tui";
import type { FgToken } from "../protocol/theme-tokens.ts";
import type * as LovelyMermaid from "./deferred/lovely-mermaid.ts";
import type { ThemeRef } from "./theme/theme-ref.ts";

const lexer = new Marked();

let mermaid: typeof LovelyMermaid | undefined;
/** The diagram renderer is parsed and evaluated at the first diagram, not when the UI starts (a tenth of the bundle). */
const diagrams = (): typeof LovelyMermaid => {
	mermaid ??= require("./deferred/lovely-mermaid.ts") as typeof LovelyMermaid;
	return mermaid;
};

function isMermaid(token: Token): token is Token & { text: string } {
	return (
		token.type === "code" && (token as { lang?: string }).lang?.trim().split(/\s+/, 1)[0]?.toLowerCase() === "mermaid"
	);
}

/** One diagram row as inline code, so Markdown keeps its spacing; blank rows get a no-break space to keep height. */
function codeSpan(line: string): string {
	const content = line || "\u00a0";
	const longest = Math.max(0, ...Array.from(content.matchAll(/`+/g), (m) => m[0].length));
	const fence = "`".repeat(longest + 1);
	const pad = content.startsWith("`") || content.endsWith("`") ? " " : "";
	return `${fence}${pad}${content}${pad}${fence}`;
}

/**
 * A code block's source with its closing fence: a block left open runs to the end of the text, and the warning
 * after it would be read as more of its code (its backticks shown as they are).
 */
function closedFence(raw: string): string {
	const fence = /^ {0,3}(`{3,}|~{3,})/.exec(raw)?.[1];
	if (!fence) return raw;
	const lines = raw.replace(/\n+$/, "").split("\n");
	const close = new RegExp(`^ {0,3}${fence[0] === "`" ? "`" : "~"}{${fence.length},}\\s*$`);
	return lines.length > 1 && close.test(lines.at(-1)!) ? raw : `${raw.replace(/\n*$/, "")}\n${fence}\n`;
}

export interface MermaidContext {
	/** A streaming answer may end inside a diagram: warnings wait until it is complete. */
	readonly streaming: boolean;
}

/**
 * pi's Mermaid rendering: top-level ```mermaid blocks become Unicode diagrams drawn by
 * lovely-mermaid in the theme's colors. A diagram wider than the space keeps its source; an invalid one, once
 * complete, keeps its source and says why.
 */
export function createMermaidTransformer(theme: ThemeRef) {
	return (markdown: string, width: number, context: MermaidContext): string => {
		if (!markdown.includes("```mermaid") && !markdown.includes("~~~mermaid")) return markdown;
		return lexer
			.lexer(markdown)
			.map((token) => {
				if (!isMermaid(token)) return token.raw;
				const art = diagrams().render(token.text);
				if (!art || art.width > width) return token.raw;
				const t = theme.current;
				if (art.warnings.length > 0) {
					if (context.streaming) return token.raw;
					const more = art.warnings.length > 1 ? ` (+${art.warnings.length - 1} more)` : "";
					const warning = codeSpan(t.fg("warning", `Mermaid diagram not rendered: ${art.warnings[0]}${more}`));
					return `${closedFence(token.raw)}\n${warning}  \n`;
				}
				const sgr = (token: FgToken) => t.fgPaint(token).open.slice(2, -1);
				const accent = sgr("accent");
				// A role the theme leaves at the terminal's default is left out: lovely-mermaid prints it unstyled.
				const roles = Object.fromEntries(
					Object.entries({
						border: sgr("borderMuted"),
						text: sgr("text"),
						edge: accent,
						edgeLabel: sgr("text"),
						title: accent ? `1;${accent}` : "1",
					}).filter(([, value]) => value !== ""),
				);
				// Links are not drawn as hyperlinks: the launcher removes OSC 8 anyway.
				const lines = diagrams().toAnsi(
					{ ...art, styled: art.styled.map((row) => row.map(({ href: _href, ...span }) => span)) },
					roles,
				);
				return `${lines.map(codeSpan).join("  \n")}\n`;
			})
			.join("");
	};
}
