import { type } from "./ark.ts";

/**
 * Who is calling. `deviceOwner`: this device's launcher with the device token. `owner`: signed in with an
 * owner link. `full` and `view`: guests admitted by a share link to one session.
 */
export const ROLES = ["deviceOwner", "owner", "full", "view"] as const;
export type Role = (typeof ROLES)[number];
export const Role = type.enumerated(...ROLES);

export const OWNER_ROLES: readonly Role[] = ["deviceOwner", "owner"];
export const PARTICIPANT_ROLES: readonly Role[] = ["deviceOwner", "owner", "full"];

export function isOwnerRole(role: Role | undefined): boolean {
	return role === "deviceOwner" || role === "owner";
}

/** Owners and full guests: those who may send, run commands and compact. */
export function isParticipantRole(role: Role | undefined): boolean {
	return role !== undefined && PARTICIPANT_ROLES.includes(role);
}
