CREATE TABLE `leaf_format` (
	`biz_tag` text(128) PRIMARY KEY NOT NULL,
	`pattern` text(256) NOT NULL,
	`reset_period` text(16) NOT NULL,
	`time_zone` text(64) NOT NULL,
	`step` integer NOT NULL,
	`description` text(256),
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`deleted_at` integer
);
--> statement-breakpoint
CREATE TABLE `leaf_format_period` (
	`biz_tag` text(128) NOT NULL,
	`period_key` text(8) NOT NULL,
	`max_id` integer NOT NULL,
	`step` integer NOT NULL,
	`update_time` integer NOT NULL,
	PRIMARY KEY(`biz_tag`, `period_key`)
);
