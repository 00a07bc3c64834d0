CREATE TABLE `leaf_participant` (
	`instance_id` text(64) PRIMARY KEY NOT NULL,
	`kind` text(16) NOT NULL,
	`label` text(255) NOT NULL,
	`host` text(255) NOT NULL,
	`proc_key` text(255) NOT NULL,
	`acked_version` integer DEFAULT 0 NOT NULL,
	`started_at` integer NOT NULL,
	`seen_at` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `leaf_order` ADD `ordering` text(8) DEFAULT 'strict' NOT NULL;--> statement-breakpoint
ALTER TABLE `leaf_order` ADD `version` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `leaf_order` ADD `complete_at` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE `leaf_order` SET `complete_at` = `strict_since`;--> statement-breakpoint
INSERT INTO `leaf_order` (`biz_tag`, `ordering`, `strict_since`, `version`) VALUES ('*', 'none', 0, 0);