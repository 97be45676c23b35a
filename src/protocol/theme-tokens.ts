import type { ThinkingLevel } from "./thinking-levels.ts";

/** pi's theme tokens, in its schema's order: each colors a foreground or a background. */
export const FG_TOKENS = [
	"accent",
	"border",
	"borderAccent",
	"borderMuted",
	"success",
	"error",
	"warning",
	"muted",
	"dim",
	"text",
	"thinkingText",
	"scrollbarTrack",
	"scrollbarThumb",
	"searchMatchText",
	"userMessageText",
	"customMessageText",
	"customMessageLabel",
	"toolTitle",
	"toolOutput",
	"mdHeading",
	"mdLink",
	"mdLinkUrl",
	"mdCode",
	"mdCodeBlock",
	"mdCodeBlockBorder",
	"mdQuote",
	"mdQuoteBorder",
	"mdHr",
	"mdListBullet",
	"toolDiffAdded",
	"toolDiffRemoved",
	"toolDiffContext",
	"syntaxComment",
	"syntaxKeyword",
	"syntaxFunction",
	"syntaxVariable",
	"syntaxString",
	"syntaxNumber",
	"syntaxType",
	"syntaxOperator",
	"syntaxPunctuation",
	"thinkingOff",
	"thinkingMinimal",
	"thinkingLow",
	"thinkingMedium",
	"thinkingHigh",
	"thinkingXhigh",
	"thinkingMax",
	"bashMode",
] as const;

export const BG_TOKENS = [
	"selectedBg",
	"searchMatchBg",
	"userMessageBg",
	"customMessageBg",
	"toolPendingBg",
	"toolSuccessBg",
	"toolErrorBg",
] as const;

export type FgToken = (typeof FG_TOKENS)[number];
export type BgToken = (typeof BG_TOKENS)[number];
export type ThemeToken = FgToken | BgToken;

/** Tokens a theme may leave out, and the token of the same kind they fall back to (pi's rules). */
export const TOKEN_FALLBACKS: Partial<Record<ThemeToken, ThemeToken>> = {
	scrollbarTrack: "muted",
	scrollbarThumb: "text",
	searchMatchBg: "selectedBg",
	searchMatchText: "text",
	thinkingMax: "thinkingXhigh",
};

export const EXPORT_TOKENS = ["pageBg", "cardBg", "infoBg"] as const;

/** The editor border's color for each thinking level. */
export const THINKING_TOKENS = {
	off: "thinkingOff",
	minimal: "thinkingMinimal",
	low: "thinkingLow",
	medium: "thinkingMedium",
	high: "thinkingHigh",
	xhigh: "thinkingXhigh",
	max: "thinkingMax",
} as const satisfies Record<ThinkingLevel, FgToken>;
