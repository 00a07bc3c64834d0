CREATE TABLE `leaf_format` (
	`biz_tag` varchar(128) NOT NULL,
	`pattern` varchar(256) NOT NULL,
	`reset_period` varchar(16) NOT NULL,
	`time_zone` varchar(64) NOT NULL,
	`step` int NOT NULL,
	`description` varchar(256),
	`created_at` bigint NOT NULL,
	`updated_at` bigint NOT NULL,
	`deleted_at` bigint,
	CONSTRAINT `leaf_format_biz_tag` PRIMARY KEY(`biz_tag`)
);
--> statement-breakpoint
CREATE TABLE `leaf_format_period` (
	`biz_tag` varchar(128) NOT NULL,
	`period_key` varchar(8) NOT NULL,
	`max_id` bigint NOT NULL,
	`step` int NOT NULL,
	`update_time` bigint NOT NULL,
	CONSTRAINT `leaf_format_period_biz_tag_period_key_pk` PRIMARY KEY(`biz_tag`,`period_key`)
);
