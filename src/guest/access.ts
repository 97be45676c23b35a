/**
 * Who may use a command: a command's `requires` names the roles it is for, and the dispatcher checks it once
 * for keys, slash forms and the palette (the server still authorizes every call; this is what the person is
 * told, and what they are offered).
 */
import { OWNER_ROLES, PARTICIPANT_ROLES, type Role } from "../protocol/roles.ts";

/** `participant`: may act in the session (owners and full guests). `owner`: this device's owner and owners. */
export type Access = "participant" | "owner";

/**
 * A command's access: a kind of access, or roles by name, with what the refusal says it is for (`to: "browse
 * sessions"` → "Only the owner can browse sessions."; without it, "… can use <title>.").
 */
export type Requirement = Access | { readonly role: Access | readonly Role[]; readonly to?: string };

const WHO: Record<Access, string> = { owner: "the owner", participant: "the owner and guests with full access" };

function roles(requirement: Requirement): readonly Role[] {
	const role = typeof requirement === "string" ? requirement : requirement.role;
	if (role === "owner") return OWNER_ROLES;
	if (role === "participant") return PARTICIPANT_ROLES;
	return role;
}

/** Whether `role` meets the requirement; an unknown role (the server has not said yet) is left to the server. */
export function meets(requirement: Requirement | undefined, role: Role | undefined): boolean {
	return requirement === undefined || role === undefined || roles(requirement).includes(role);
}

/** A command the person's access does not allow: what they read, and nothing was run. */
export class CommandRefused extends Error {
	override name = "CommandRefused";
}

/** The refusal for a command titled `title` (used when the requirement says nothing of what it is for). */
export function refusal(requirement: Requirement, title: string): CommandRefused {
	const role = typeof requirement === "string" ? requirement : requirement.role;
	const to = typeof requirement === "string" || !requirement.to ? `use ${title}` : requirement.to;
	if (typeof role !== "string") return new CommandRefused(`Your access does not allow you to ${to}.`);
	return new CommandRefused(`Only ${WHO[role]} can ${to}.`);
}
