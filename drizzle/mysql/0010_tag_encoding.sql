CREATE TABLE `leaf_encoding` (
	`biz_tag` varchar(128) NOT NULL,
	`encoding` varchar(16) NOT NULL,
	`key_id` varchar(16) NOT NULL,
	CONSTRAINT `leaf_encoding_biz_tag` PRIMARY KEY(`biz_tag`)
);
