CREATE TABLE IF NOT EXISTS `leaf_alloc` (
	`biz_tag` varchar(128) NOT NULL DEFAULT '',
	`max_id` bigint NOT NULL DEFAULT '1',
	`step` int NOT NULL,
	`description` varchar(256),
	`update_time` timestamp NOT NULL DEFAULT (now()) ON UPDATE CURRENT_TIMESTAMP,
	CONSTRAINT `leaf_alloc_biz_tag` PRIMARY KEY(`biz_tag`)
);
