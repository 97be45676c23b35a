/**
 * An environment's name, as typed before the colon of `gpu:/data`: 2 to 32 characters, because one letter would
 * read as a Windows drive (`C:`). The server's envs.json, the objects' contracts and the UI's commands share it.
 */
export const ENV_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{1,31}$/;

/** Such a name at the start of what was typed, with its colon (`gpu:` of `gpu:/data`). */
export const ENV_PREFIX = /^([A-Za-z0-9][A-Za-z0-9_.-]{1,31}):/;
