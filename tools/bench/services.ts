/** The tables of the approaches Leaf replaced (tools/bench/altServer.ts), made by tools/bench/run.ts on the bench's MariaDB. */
export const ALT_DDL = [
  'CREATE TABLE id_autoinc (id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY) ENGINE=InnoDB',
  // Flickr's ticket server, as published: MyISAM, since REPLACE INTO on InnoDB deadlocks under concurrency.
  "CREATE TABLE tickets64 (id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT, stub CHAR(1) NOT NULL DEFAULT '', PRIMARY KEY (id), UNIQUE KEY stub (stub)) ENGINE=MyISAM",
];
