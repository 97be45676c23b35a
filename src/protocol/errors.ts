/** What an error says, for a person or a log: an Error's message, anything else thrown as text. */
export function errorText(error: unknown): string {
	return error instanceof Error ? error.message : String(error);
}
