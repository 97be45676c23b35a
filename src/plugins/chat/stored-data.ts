import { type } from "../../protocol/ark.ts";
import { checkWith, PLUGIN_ENTRY_TYPE } from "../../server/plugin.ts";
import { SHELL_FIELDS } from "./contract.ts";
import type { StoredData, StoredRow } from "./view.ts";

const Image = type({ type: "'image'", data: "string", mimeType: "string" });
const TextBlock = type({ type: "'text'", text: "string" });
const ContentBlock = TextBlock.or(Image);
const AssistantBlock = TextBlock.or({ type: "'thinking'", thinking: "string" }).or({
	type: "'toolCall'",
	id: "string",
	name: "string",
	arguments: "object",
});

/** What each kind must look like before the model or a client is given it; extra fields are allowed. */
const SHAPES = {
	user: type({ kind: "'user'", text: "string", "images?": Image.array(), "context?": "string", "lead?": "string" }),
	assistant: type({
		kind: "'assistant'",
		message: {
			role: "'assistant'",
			content: AssistantBlock.array(),
			"stopReason?": "string",
			"provider?": "string",
			"model?": "string",
		},
		"retried?": "boolean",
	}),
	tool: type({
		kind: "'tool'",
		callId: "string",
		name: "string",
		args: "object",
		result: { content: ContentBlock.array(), isError: "boolean" },
		durationMs: "number | null",
	}),
	error: type({ kind: "'error'", message: "string" }),
	compaction: type({ kind: "'compaction'", summary: "string", tokensBefore: "number" }),
	reset: type({ kind: "'reset'", handoff: "string | null" }),
	shell: type({ kind: "'shell'", ...SHELL_FIELDS }),
} as const;

const PluginShape = type({ kind: "string", data: "Record<string, unknown>" });
const storedKey = (kind: string) => `chat/stored/${kind}`;
const PLUGIN_SHAPE_KEY = storedKey("plugin");

/** The row shapes by key, for the server's precompiled validators. */
export function storedSchemas(): ReadonlyMap<string, unknown> {
	return new Map<string, unknown>([
		[PLUGIN_SHAPE_KEY, PluginShape],
		...Object.entries(SHAPES).map(([kind, schema]) => [storedKey(kind), schema] as const),
	]);
}

/**
 * A row's data, checked against its kind; null when the row is damaged (unreadable JSON, a kind that does not
 * match its data, a missing or mistyped field) or of a kind the chat does not know. `interrupted` rows carry
 * whatever recovery wrote, so only their kind is trusted.
 */
export function readStored(row: StoredRow): StoredData | null {
	if (row.kind === "interrupted") return { kind: "interrupted" };
	if (PLUGIN_ENTRY_TYPE.test(row.kind)) {
		const checked = checkWith(PLUGIN_SHAPE_KEY, PluginShape, row.data);
		return checked instanceof type.errors || checked.kind !== row.kind ? null : (row.data as StoredData);
	}
	if (!Object.hasOwn(SHAPES, row.kind)) return null;
	const schema: (data: unknown) => unknown = SHAPES[row.kind as keyof typeof SHAPES];
	const checked = checkWith(storedKey(row.kind), schema, row.data);
	return checked instanceof type.errors ? null : (row.data as StoredData);
}

/** What the person reads in place of a damaged entry. */
export function damagedText(seq: number): string {
	return `entry ${seq} could not be read; the model does not see it`;
}
