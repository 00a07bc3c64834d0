CREATE TABLE `leaf_encoding` (
	`biz_tag` text(128) PRIMARY KEY NOT NULL,
	`encoding` text(16) NOT NULL,
	`key_id` text(16) NOT NULL
);
