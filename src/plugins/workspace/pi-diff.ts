/**
 * Git's unified hunks as pi's edit card numbers them (`+12 text`, `-12 text`, ` 12 text`, and ` … ...` between
 * hunks), so /changes shows a change with the edit card's renderer (its word diff included).
 */
export function piDiff(unified: string): string {
	const rows: { sign: string; number: number | null; text: string }[] = [];
	let oldLine = 0;
	let newLine = 0;
	let hunks = 0;
	for (const row of unified.split("\n")) {
		const head = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(row);
		if (head) {
			if (hunks++ > 0) rows.push({ sign: " ", number: null, text: "..." });
			oldLine = Number(head[1]);
			newLine = Number(head[2]);
			continue;
		}
		if (!hunks || row.startsWith("\\")) continue;
		const sign = row[0];
		const text = row.slice(1);
		if (sign === "+") rows.push({ sign, number: newLine++, text });
		else if (sign === "-") rows.push({ sign, number: oldLine++, text });
		else if (sign === " ") {
			rows.push({ sign, number: oldLine++, text });
			newLine++;
		}
	}
	const width = String(Math.max(0, ...rows.map((r) => r.number ?? 0))).length;
	return rows
		.map((r) => `${r.sign}${(r.number === null ? "" : String(r.number)).padStart(width)} ${r.text}`)
		.join("\n");
}
