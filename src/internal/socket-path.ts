/*
 * Socket path limit: the longest unix socket path grok-seat binds or connects to.
 * Owns: the one constant, in a module that imports nothing, so light readers (`seat ps`) need not load seat/.
 */

/** The longest socket path we accept (Linux sun_path is 108 bytes, macOS 104, minus a margin). */
export const MAX_SOCKET_PATH_BYTES = 100;
