/**
 * sysexits' EX_CONFIG: a start refused for its configuration (a bad variable, a port in use, a node id live in
 * another process, a bad epoch). Neither systemd (RestartPreventExitStatus) nor a cluster primary restarts it.
 */
export const EXIT_CONFIG = 78;
