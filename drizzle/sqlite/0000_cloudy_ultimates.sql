CREATE TABLE IF NOT EXISTS `leaf_alloc` (
	`biz_tag` text(128) PRIMARY KEY DEFAULT '' NOT NULL,
	`max_id` integer DEFAULT 1 NOT NULL,
	`step` integer NOT NULL,
	`description` text(256),
	`update_time` text DEFAULT CURRENT_TIMESTAMP NOT NULL
);
