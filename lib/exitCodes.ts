/** sysexits' EX_CONFIG: a start refused for its configuration, which systemd and a cluster primary do not restart. */
export const EXIT_CONFIG = 78;
