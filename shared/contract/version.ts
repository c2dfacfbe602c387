// The wire protocol's version: /api/config says it, so a page can tell a server it does not speak.
export const PROTOCOL_VERSION = 1;
