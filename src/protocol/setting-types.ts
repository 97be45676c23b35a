/**
 * The display settings' types are written in arktype's syntax (`"boolean | 'auto'"`, `"string <= 16"`); the
 * launcher checks values against them with this small reader instead of loading arktype at start. It knows
 * exactly the forms the settings use, and refuses a definition it does not know; a test checks it against
 * arktype on every setting.
 */

type Check = (value: unknown) => boolean;

function alternative(text: string): Check {
	const form = text.trim();
	if (form === "boolean") return (v) => typeof v === "boolean";
	if (form === "true" || form === "false") return (v) => v === (form === "true");
	if (form === "number") return (v) => typeof v === "number" && !Number.isNaN(v);
	if (/^-?\d+$/.test(form)) return (v) => v === Number(form);
	const literal = /^'([^']*)'$/.exec(form);
	if (literal) return (v) => v === literal[1];
	const bounded = /^string <= (\d+)$/.exec(form);
	if (bounded) return (v) => typeof v === "string" && v.length <= Number(bounded[1]);
	throw new Error(`a setting type this reader does not know: ${form}`);
}

const compiled = new Map<string, Check>();

/** Whether `value` is of the type `definition` names (a union of the forms above). */
export function matchesSettingType(definition: string, value: unknown): boolean {
	let check = compiled.get(definition);
	if (!check) {
		const alternatives = definition.split("|").map(alternative);
		check = (v) => alternatives.some((matches) => matches(v));
		compiled.set(definition, check);
	}
	return check(value);
}
