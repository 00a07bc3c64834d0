CREATE TABLE `leaf_semantics` (
	`biz_tag` text(128) PRIMARY KEY NOT NULL,
	`semantics` text(8) NOT NULL
);
